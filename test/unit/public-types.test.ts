import { describe, expectTypeOf, it } from "vitest";
import type { CellResult, DecidedBy } from "../../src/index.js";

describe("public types", () => {
  it("decidedBy is the DecidedBy union: the built-in reasons autocomplete, a user detector's name still fits", () => {
    expectTypeOf<CellResult["decidedBy"]>().toEqualTypeOf<DecidedBy>();
    expectTypeOf<"shell-integration">().toMatchTypeOf<DecidedBy>();
    expectTypeOf<"detector-error">().toMatchTypeOf<DecidedBy>();
    expectTypeOf<"my-detector">().toMatchTypeOf<DecidedBy>();
  });

  it("a CellResult narrows on status", () => {
    const narrow = (result: CellResult): number | null => (result.status === "done" ? result.exitCode : null);
    expectTypeOf(narrow).returns.toEqualTypeOf<number | null>();
  });
});
