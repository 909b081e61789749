import { describe, expectTypeOf, it } from "vitest";
import type { CellDoneEvent, CellResult, DecidedBy, Session, SessionEvent } from "../../src/index.js";

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

  it("a SessionEvent narrows on type: a done event has its cellId and final status, a notify event its message", () => {
    const cellOf = (event: SessionEvent): string | null => (event.type === "done" ? event.cellId : null);
    expectTypeOf(cellOf).returns.toEqualTypeOf<string | null>();
    const messageOf = (event: SessionEvent): string | null => (event.type === "notify" ? event.message : null);
    expectTypeOf(messageOf).returns.toEqualTypeOf<string | null>();
    expectTypeOf<Extract<SessionEvent, { type: "done" }>>().toEqualTypeOf<CellDoneEvent>();
    // Fields a kind lacks still read (as undefined) on the union, as they did when it was one interface.
    expectTypeOf<SessionEvent["cellId"]>().toEqualTypeOf<string | undefined>();
  });

  it("a Session exposes subscription only: typed on/once/off, no emit", () => {
    expectTypeOf<Session>().not.toHaveProperty("emit");
    expectTypeOf<Session>().not.toHaveProperty("removeAllListeners");
    expectTypeOf<Parameters<Session["on"]>[0]>().toEqualTypeOf<"cell" | "exit" | "notify" | "data" | "event">();
  });
});
