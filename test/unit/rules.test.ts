import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CappedMap } from "../../src/internal/capped-map.js";
import { settleWithin } from "../../src/internal/settle-within.js";
import { executableProblem, isExecutable } from "../../src/pty/environment.js";
import { optionalString, requiredString } from "../../src/validate.js";

describe("one home per rule", () => {
  it("CappedMap keeps the newest entries up to its capacity, dropping the oldest first", () => {
    const map = new CappedMap<string, number>(3);
    for (const [index, key] of ["a", "b", "c", "d", "e"].entries()) map.set(key, index);
    expect([...map.keys()]).toEqual(["c", "d", "e"]);
    map.set("c", 9); // an existing key is updated in place, nothing dropped
    expect([...map.entries()]).toEqual([
      ["c", 9],
      ["d", 3],
      ["e", 4],
    ]);
  });

  it("settleWithin gives the promise's value when it settles in time, the fallback when it does not, and passes rejections", async () => {
    await expect(settleWithin(Promise.resolve("value"), 1_000, "late")).resolves.toBe("value");
    await expect(settleWithin(new Promise(() => {}), 10, "late")).resolves.toBe("late");
    await expect(settleWithin(Promise.reject(new Error("boom")), 1_000, "late")).rejects.toThrow("boom");
  });

  it("string options: one check, one message naming the option", () => {
    expect(requiredString("x", "text")).toBe("x");
    expect(optionalString(undefined, "label")).toBeUndefined();
    expect(() => requiredString(42, "text")).toThrow(
      expect.objectContaining({ code: "ERR_INVALID_ARGUMENT", message: expect.stringContaining("Expected `text` to be a string, got") }),
    );
    expect(() => optionalString(null, "label")).toThrow(/`label` to be a string/);
  });

  it("one executable check: a missing path or a directory is missing, a file without x bits is not executable", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-tty-exec-"));
    try {
      const script = join(dir, "hook.sh");
      writeFileSync(script, "#!/bin/sh\nexit 0\n");
      chmodSync(script, 0o644);
      expect(executableProblem(join(dir, "absent"))).toBe("missing");
      expect(executableProblem(dir)).toBe("missing");
      expect(executableProblem(script, { readable: true })).toBe("not-executable");
      expect(isExecutable(script)).toBe(false);
      chmodSync(script, 0o755);
      expect(executableProblem(script, { readable: true })).toBeNull();
      expect(isExecutable(script)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
