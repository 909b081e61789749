import { describe, expect, it } from "vitest";
import { ECHO, frameEnd, OUTPUT_START, outputEnd, toVerdict } from "../../src/detect/verdict.js";

describe("toVerdict: what feed returns, as the verdict the session acts on", () => {
  it("passes tagged verdicts through unchanged", () => {
    const end = { kind: "end", exitCode: 3, cwd: "/tmp" } as const;
    expect(toVerdict(end)).toBe(end);
    expect(toVerdict({ kind: "echo" })).toEqual({ kind: "echo" });
    expect(toVerdict({ kind: "output-end", note: "why" })).toEqual({ kind: "output-end", note: "why" });
  });

  it("reads the first form's shapes as the verdicts they stand for", () => {
    expect(toVerdict({})).toEqual({ kind: "end" });
    expect(toVerdict({ exitCode: 0, cwd: "/", dropLines: 1 })).toEqual({ kind: "end", exitCode: 0, cwd: "/", dropLines: 1 });
    expect(toVerdict({ echo: true })).toBe(ECHO);
    expect(toVerdict({ output: "start" })).toBe(OUTPUT_START);
    expect(toVerdict({ output: "end" })).toEqual({ kind: "output-end" });
    expect(toVerdict({ output: "end", note: "cancelled" })).toEqual({ kind: "output-end", note: "cancelled" });
  });

  it("nothing stays nothing", () => {
    expect(toVerdict(undefined)).toBeUndefined();
  });

  it("the constructors built-in detectors use make the same verdicts", () => {
    expect(frameEnd({ exitCode: 1 })).toEqual(toVerdict({ exitCode: 1 }));
    expect(outputEnd("n")).toEqual(toVerdict({ output: "end", note: "n" }));
    expect(outputEnd()).toEqual(toVerdict({ output: "end" }));
  });
});
