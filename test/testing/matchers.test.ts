import { describe, expect, it } from "vitest";
import { terminalMatchers } from "../../src/testing/matchers.js";
import { spawnBash, spawnSession } from "../helpers/sessions.js";

const { toHaveOutput, toHaveExitCode, toHaveStatus, toShowOnScreen } = terminalMatchers;
const asserting = { isNot: false };
const negated = { isNot: true };

describe("the matchers, called as a framework calls them", () => {
  it("toHaveOutput: a string is the whole output, a RegExp searches it; the message quotes the cell", async () => {
    const sh = await spawnBash();
    const result = await sh.run("printf 'alpha\\nbeta\\n'");
    expect(toHaveOutput.call(asserting, result, "alpha\nbeta").pass).toBe(true);
    expect(toHaveOutput.call(asserting, result, "alpha").pass).toBe(false);
    expect(toHaveOutput.call(asserting, result, /^beta$/m).pass).toBe(true);
    expect(toHaveOutput.call(asserting, result, /gamma/g).pass).toBe(false);
    const failed = toHaveOutput.call(negated, result, /beta/);
    expect(failed.message()).toBe(
      `expected the cell not to have output matching /beta/\ncell ${result.cellId} (\`printf 'alpha\\nbeta\\n'\`): status done, exit code 0\noutput:\n  │ alpha\n  │ beta`,
    );
  });

  it("toHaveExitCode and toHaveStatus read the result; anything but a CellResult fails with what was given", async () => {
    const sh = await spawnBash();
    const result = await sh.run("exit_with() { return $1; }; exit_with 7");
    expect(toHaveExitCode.call(asserting, result, 7).pass).toBe(true);
    expect(toHaveExitCode.call(asserting, result, 0).message()).toContain("expected the cell to have exit code 0\n");
    expect(toHaveStatus.call(asserting, result, "done").pass).toBe(true);
    expect(toHaveStatus.call(asserting, result, "timeout").pass).toBe(false);
    const wrong = toHaveStatus.call(asserting, "done", "done");
    expect(wrong.pass).toBe(false);
    expect(wrong.message()).toMatch(/^toHaveStatus: expected a CellResult .*, got `"done"` \(string\)$/);
  });

  it("bad expectations throw ERR_INVALID_ARGUMENT", async () => {
    const sh = await spawnBash();
    const result = await sh.run("true");
    expect(() => toHaveOutput.call(asserting, result, 42 as unknown as string)).toThrowError(
      expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }),
    );
    expect(() => toHaveExitCode.call(asserting, result, 1.5)).toThrowError(expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }));
    await expect(toShowOnScreen.call(asserting, sh, "x", { timeoutMs: -1 })).rejects.toMatchObject({ code: "ERR_INVALID_ARGUMENT" });
  });

  it("toShowOnScreen waits for output that comes later, and counts the spaces before the cursor", async () => {
    const py = await spawnSession({ command: "python3" });
    const cell = py.fire("import time; time.sleep(0.3); print('LATE-' + 'ARRIVAL')");
    const shown = await toShowOnScreen.call(asserting, py, /^LATE-ARRIVAL$/m, { timeoutMs: 10_000 });
    expect(shown.pass).toBe(true);
    await cell.result;
    expect((await toShowOnScreen.call(asserting, py, />>> $/m)).pass).toBe(true);
  });

  it("toShowOnScreen fails after timeoutMs with the last screen; .not waits for the text to go away", async () => {
    const sh = await spawnBash({ cols: 40, rows: 6 });
    await sh.run("echo STAYS");
    const missing = await toShowOnScreen.call(asserting, sh, "NEVER", { timeoutMs: 200 });
    expect(missing.pass).toBe(false);
    expect(missing.message()).toMatch(
      /^expected session 'bash' to show "NEVER" on screen within 200 ms \(waited \d+ ms\)\nlast screen:\n[\s\S]*  │ STAYS\n/,
    );
    const stays = await toShowOnScreen.call(negated, sh, "STAYS", { timeoutMs: 200 });
    expect(stays.pass).toBe(true);
    expect(stays.message()).toContain('to stop showing "STAYS"');
    const cleared = toShowOnScreen.call(negated, sh, "STAYS", { timeoutMs: 10_000 });
    sh.fire("clear");
    expect((await cleared).pass).toBe(false);
  });

  it("toShowOnScreen on a closed session fails at once and says so", async () => {
    const sh = await spawnBash();
    await sh.close();
    const started = performance.now();
    const result = await toShowOnScreen.call(asserting, sh, "x", { timeoutMs: 20_000 });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result.pass).toBe(false);
    expect(result.message()).toContain("but it is closed");
  });
});
