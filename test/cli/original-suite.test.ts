import { execFile } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliSandbox, K, ROOT } from "../helpers/cli.js";

// The original agent-tty's own shell suite (tests/test.sh + its runtime
// regressions), ported to test/cli/original-suite.sh, run against the built k.
let box: CliSandbox;
beforeAll(() => {
  box = new CliSandbox();
});
afterAll(async () => {
  await box.cleanup();
});

describe("the original agent-tty shell test suite", () => {
  it("passes every check that does not inspect the original's internal files", async () => {
    const { stdout, code } = await new Promise<{ stdout: string; code: number }>((resolve) => {
      execFile(
        "bash",
        [join(ROOT, "test", "cli", "original-suite.sh"), `${process.execPath} ${K}`],
        { cwd: box.dir, env: box.env, timeout: 280_000, maxBuffer: 16 << 20 },
        (error, out, err) => resolve({ stdout: out + err, code: error ? Number(error.code ?? 1) : 0 }),
      );
    });
    const summary = /═══ (\d+) passed, (\d+) failed, (\d+) skipped ═══/.exec(stdout);
    expect(summary, stdout).not.toBeNull();
    expect(stdout).not.toContain("✗");
    expect(Number(summary?.[2]), stdout).toBe(0);
    expect(Number(summary?.[1])).toBeGreaterThanOrEqual(40);
    expect(code).toBe(0);
  }, 300_000);
});
