import { describe, expect, it } from "vitest";
import { AgentTtyError, CellTimeoutError } from "../../src/index.js";
import { spawnBash } from "../helpers/sessions.js";

describe("expect() against real bash programs", () => {
  it("answers a silent `read -s` Password: prompt; the password is not echoed", async () => {
    const sh = await spawnBash();
    // Prompts are built at run time so the echoed command line cannot match the pattern.
    const cell = sh.fire(`w=Pass; read -s -p "\${w}word: " pw; echo; echo "length=\${#pw}"`);
    const asked = await sh.expect("Password:", { timeoutMs: 10_000 });
    expect(asked.match).toBe("Password:");
    sh.type("hunter2\n");
    const result = await cell.result;
    expect(result.status).toBe("done");
    expect(result.output).toContain("length=7");
    expect(result.output).not.toContain("hunter2");
  });

  it("answers a [y/N] question and the program takes the answer", async () => {
    const sh = await spawnBash();
    const cell = sh.fire(`y=y; read -p "Remove all files? [$y/N] " a; if [ "$a" = y ]; then echo "chose-yes"; else echo "chose-no"; fi`);
    const asked = await sh.expect(/\[y\/N\]/, { timeoutMs: 10_000 });
    expect(asked.match).toBe("[y/N]");
    expect(asked.before).toContain("Remove all files?");
    sh.type("y\n");
    const result = await cell.result;
    expect(result.output.split("\n")).toContain("chose-yes");
  });

  it("only output that arrives after the call counts: text printed before does not match", async () => {
    const sh = await spawnBash();
    await sh.run("echo stale-marker-1");
    await expect(sh.expect("stale-marker-1", { timeoutMs: 300 })).rejects.toBeInstanceOf(CellTimeoutError);

    const fresh = sh.expect("stale-marker-1", { timeoutMs: 5_000 });
    await sh.run("echo stale-marker-1");
    expect((await fresh).match).toBe("stale-marker-1");
  });

  it("an unfinished prompt line already shown is stale; the same prompt printed again afterwards matches", async () => {
    const sh = await spawnBash();
    const cell = sh.fire(`q=ask; read -p "$q> " a; read -p "$q> " b; echo "answers=$a,$b"`);
    await sh.expect("ask>", { timeoutMs: 10_000 });
    // The first "ask> " is still on the screen, unanswered: a new expect must not see it.
    await expect(sh.expect("ask>", { timeoutMs: 300 })).rejects.toBeInstanceOf(CellTimeoutError);

    const second = sh.expect("ask>", { timeoutMs: 5_000 });
    sh.type("one\n");
    await second;
    sh.type("two\n");
    expect((await cell.result).output).toContain("answers=one,two");
  });

  it("a pattern that does not come in time rejects with CellTimeoutError carrying the recent output", async () => {
    const sh = await spawnBash();
    const cell = sh.fire(`echo "recent-line-A"; echo "recent-line-B"; read x`);
    const error: unknown = await sh.expect(/never-printed/, { timeoutMs: 800 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CellTimeoutError);
    expect(error).toBeInstanceOf(AgentTtyError);
    const timeout = error as CellTimeoutError;
    expect(timeout.code).toBe("ERR_CELL_TIMEOUT");
    expect(timeout.message).toContain("never-printed");
    expect(timeout.recentOutput).toContain("recent-line-A");
    expect(timeout.recentOutput).toContain("recent-line-B");
    expect(timeout.recentOutput).not.toMatch(/\x1b/);
    sh.type("\n");
    expect((await cell.result).status).toBe("done");
  });

  it("returns the capture groups and the clean text before the match", async () => {
    const sh = await spawnBash();
    // The version is computed, so the echoed command line cannot match the pattern.
    const cell = sh.fire(`printf '\\e[1mbold-alpha\\e[0m\\n'; major=3; echo "version: $major.14 build 7"; echo "tail-line"`);
    const found = await sh.expect(/version: (\d+)\.(\d+) build (\d+)/, { timeoutMs: 10_000 });
    expect(found.match).toBe("version: 3.14 build 7");
    expect(found.groups).toEqual(["3", "14", "7"]);
    expect(found.before).toMatch(/(^|\n)bold-alpha\n$/);
    expect(found.before).not.toMatch(/\x1b/);
    expect(found.before.split("\n")).not.toContain("tail-line");
    await cell.result;
  });

  it("a string pattern is matched literally and has no groups", async () => {
    const sh = await spawnBash();
    const cell = sh.fire(`p='(a+'; echo "literal \${p}b)* here"`);
    const found = await sh.expect("(a+b)*", { timeoutMs: 10_000 });
    expect(found).toMatchObject({ match: "(a+b)*", groups: [] });
    expect(found.before.endsWith("literal ")).toBe(true);
    await cell.result;
  });

  it("an empty or non-string pattern rejects with ERR_INVALID_ARGUMENT", async () => {
    const sh = await spawnBash();
    await expect(sh.expect("")).rejects.toMatchObject({ code: "ERR_INVALID_ARGUMENT" });
    await expect(sh.expect(42 as unknown as string)).rejects.toMatchObject({ code: "ERR_INVALID_ARGUMENT" });
    await expect(sh.expect("x", { timeoutMs: -1 })).rejects.toMatchObject({ code: "ERR_INVALID_ARGUMENT" });
  });
});

describe('expect(pattern, { on: "screen" }) for full-screen programs', () => {
  it("waits for less to draw a page and to jump to the end, then rejects with the last screen when nothing comes", async () => {
    const sh = await spawnBash({ cols: 60, rows: 12 });
    await sh.run("seq -f 'row %g' 1 500 > /tmp/agent-tty-expect-screen.txt");
    const cell = sh.fire("less /tmp/agent-tty-expect-screen.txt; rm -f /tmp/agent-tty-expect-screen.txt");
    const first = await sh.expect(/^row 11$/m, { on: "screen", timeoutMs: 10_000 });
    expect(first.match).toBe("row 11");
    expect(first.before).toMatch(/^row 1\n/);
    sh.press("G");
    expect((await sh.expect(/row (\d+)\n\(END\)/, { on: "screen", timeoutMs: 10_000 })).groups).toEqual(["500"]);
    const missed = await sh.expect("row 1000", { on: "screen", timeoutMs: 300 }).catch((error: unknown) => error);
    expect(missed).toBeInstanceOf(CellTimeoutError);
    expect((missed as CellTimeoutError).recentOutput).toContain("row 500");
    sh.press("q");
    expect((await cell.result).status).toBe("done");
  });

  it("matches what is on the screen already, and refuses an unknown `on`", async () => {
    const sh = await spawnBash();
    await sh.run("echo already-there");
    expect((await sh.expect("already-there", { on: "screen", timeoutMs: 1_000 })).match).toBe("already-there");
    await expect(sh.expect("x", { on: "page" as "screen" })).rejects.toMatchObject({ code: "ERR_INVALID_ARGUMENT" });
  });
});
