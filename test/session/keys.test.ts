import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentTtyError, SessionBusyError } from "../../src/index.js";
import { spawnBash } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";
import { shq, tempDir } from "../helpers/common.js";

describe("press() and paste() in real programs", () => {
  it('press("up") recalls the last bash command and Enter runs it again', async () => {
    const sh = await spawnBash();
    const first = await sh.run("echo recalled-$((20+22))");
    expect(first.output).toBe("recalled-42");

    // The recalled line is `echo recalled-$((20+22))`; only running it prints `recalled-42`.
    const ran = sh.expect(/^recalled-42$/m, { timeoutMs: 5_000 });
    // The prompt drawn after the recalled command's output: the shell is idle again.
    const promptBack = sh.expect(/^recalled-42\n.*[$#] $/m, { timeoutMs: 5_000 });
    sh.press("up");
    await waitFor(
      () =>
        sh
          .screen()
          .split("\n")
          .some((row) => row.endsWith("echo recalled-$((20+22))")),
      {
        message: "the recalled command on the prompt line",
      },
    );
    sh.press("enter");
    await ran;
    await promptBack;

    // The shell still frames cells after commands typed outside any cell.
    const after = await sh.run("echo framed-again");
    expect(after).toMatchObject({ status: "done", output: "framed-again", exitCode: 0 });
  });

  it("a cell run while a command typed outside any cell still runs reports its own output", async () => {
    const sh = await spawnBash();
    await sh.run("true");
    sh.type("sleep 0.5; echo manual-$((1+1))");
    sh.press("enter");
    const result = await sh.run("echo cell-$((2+2))", { timeoutMs: 10_000 });
    expect(result).toMatchObject({ status: "done", output: "cell-4" });
    expect((await sh.run("echo next-cell")).output).toBe("next-cell");
  });

  it('press("ctrl+c") interrupts a foreground sleep and bash reports exit status 130', async () => {
    const sh = await spawnBash();
    const cell = sh.fire("sleep 30");
    await waitFor(() => sh.quietMs > 100 && sh.activity === "running", { message: "sleep to be running" });
    sh.press("ctrl+c");
    const result = await cell.result;
    expect(result.status).toBe("done");
    expect(result.exitCode).toBe(130);
    expect(result.durationMs).toBeLessThan(10_000);
    expect(sh.state).toBe("idle");
  });

  it("after interrupt() of a program that ignores Ctrl-C, the next cell reports its own output, not the old program's", async () => {
    const sh = await spawnBash();
    const armed = sh.expect(/^armed$/m, { timeoutMs: 10_000 });
    const cell = sh.fire(`bash -c "trap '' INT; echo armed; sleep 4; echo old-program-output"`);
    await armed;
    await sh.interrupt();
    expect((await cell.result).status).toBe("interrupted");

    // Either the session still counts as busy while the program runs on, or the next cell waits for it;
    // in both cases the next cell's result is its own output, never the old program's.
    let next = await sh.run("echo own-output", { timeoutMs: 10_000 }).catch((error: unknown) => error);
    if (next instanceof SessionBusyError) {
      expect(sh.activeCell).not.toBeNull();
      await sh.wait({ timeoutMs: 10_000 });
      expect(sh.activeCell).toBeNull();
      next = await sh.run("echo own-output", { timeoutMs: 10_000 });
    }
    expect(next).toMatchObject({ status: "done", output: "own-output" });
  });

  it("arrows are sent as SS3 sequences while the program enabled application cursor mode, CSI otherwise", async () => {
    const sh = await spawnBash();
    const readKey = (setup: string) => `printf '${setup}'; IFS= read -rsn3 key; printf '\\e[?1l'; printf 'key=%q\\n' "$key"`;

    const application = await sh.run(readKey("\\e[?1h"), { untilInput: true, timeoutMs: 10_000 });
    expect(application.status).toBe("awaiting_input");
    sh.press("up");
    expect((await sh.wait()).output).toBe("key=$'\\EOA'");

    const normal = await sh.run(readKey(""), { untilInput: true, timeoutMs: 10_000 });
    expect(normal.status).toBe("awaiting_input");
    sh.press("up");
    expect((await sh.wait()).output).toBe("key=$'\\E[A'");
  });

  it("pagedown, down and q reach less: the page moves, one line scrolls, less quits back to the prompt", async () => {
    const dir = tempDir();
    const file = join(dir, "rows.txt");
    writeFileSync(file, Array.from({ length: 200 }, (_, index) => `row ${index + 1}`).join("\n") + "\n");
    const sh = await spawnBash({ rows: 24, cols: 80, env: { LESS: "", LESSHISTFILE: "-" } });
    const cell = sh.fire(`less ${shq(file)}`);
    const top = () => sh.screen().split("\n")[0] ?? "";

    await waitFor(() => top() === "row 1", { timeoutMs: 10_000, message: "less to show row 1 on top" });
    sh.press("pagedown");
    await waitFor(() => top() === "row 24", { message: `pagedown to put row 24 on top (top: ${top()})` });
    sh.press("down");
    await waitFor(() => top() === "row 25", { message: `down to scroll one line (top: ${top()})` });
    sh.press("space");
    await waitFor(() => top() === "row 48", { message: `space to page (top: ${top()})` });
    sh.press("q");

    const result = await cell.result;
    expect(result.status).toBe("done");
    expect(sh.screen()).not.toContain("row 48");
    expect((await sh.run("echo after-less")).output).toBe("after-less");
  });

  it("arrow keys move vim's cursor: down, down, dd deletes the third line of the file", async () => {
    const dir = tempDir();
    const file = join(dir, "lines.txt");
    writeFileSync(file, "one\ntwo\nthree\nfour\n");
    const sh = await spawnBash({ rows: 24, cols: 80 });
    const cell = sh.fire(`vim -u NONE -N -n ${shq(file)}`);
    await waitFor(() => sh.screen().startsWith("one\ntwo\nthree\nfour\n~") && sh.screen().includes("lines.txt"), {
      timeoutMs: 10_000,
      message: "vim to show the file",
    });
    sh.press("down", "down");
    sh.type("dd");
    await waitFor(() => sh.screen().startsWith("one\ntwo\nfour\n~"), { message: "the third line to be deleted on screen" });
    sh.type(":wq");
    sh.press("enter");
    expect((await cell.result).status).toBe("done");
    expect(readFileSync(file, "utf8")).toBe("one\ntwo\nfour\n");
  });

  it("an unknown key name throws ERR_INVALID_ARGUMENT listing valid names and writes nothing, not even the valid keys before it", async () => {
    const sh = await spawnBash();
    const asked = await sh.run(`IFS= read -r line; echo "got[$line]"`, { untilInput: true, timeoutMs: 10_000 });
    expect(asked.status).toBe("awaiting_input");

    let thrown: unknown;
    try {
      sh.press("a", "b", "hyperspace");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AgentTtyError);
    const error = thrown as AgentTtyError;
    expect(error.code).toBe("ERR_INVALID_ARGUMENT");
    expect(error.message).toContain("hyperspace");
    for (const name of ["enter", "tab", "esc", "backspace", "pageup", "f12", "ctrl+"]) expect(error.message).toContain(name);

    sh.type("z\n");
    const result = await sh.wait();
    expect(result.output).toContain("got[z]");
    expect(result.output).not.toContain("abz");
  });

  it("backspace and left edit a readline line in bash before Enter submits it", async () => {
    const sh = await spawnBash();
    const asked = await sh.run(`read -e -p "name> " v; echo "[$v]"`, { untilInput: true, timeoutMs: 10_000 });
    expect(asked.status).toBe("awaiting_input");
    expect(asked.output).toContain("name>");
    sh.type("acdx");
    sh.press("backspace");
    sh.press("left", "left");
    sh.type("b");
    sh.press("enter");
    const result = await sh.wait();
    expect(result.status).toBe("done");
    expect(result.output.split("\n")).toContain("[abcd]");
  });

  it("paste() of a multi-line text into bash uses bracketed paste: nothing runs until Enter, then both lines run", async () => {
    const sh = await spawnBash();
    await sh.run("true");
    const ranBoth = sh.expect(/^B-4$/m, { timeoutMs: 5_000 });
    const promptBack = sh.expect(/^B-4\n.*[$#] $/m, { timeoutMs: 5_000 });
    sh.paste("echo A-$((1+1))\necho B-$((2+2))");
    // With line-by-line input, `echo A-…` would have run (printing A-2) before the second line is drawn.
    const shown = await waitFor(() => (sh.screen().includes("echo B-$((2+2))") ? sh.screen() : undefined), {
      message: "the pasted second line on the screen",
    });
    expect(shown).toContain("echo A-$((1+1))");
    expect(shown.split("\n")).not.toContain("A-2");
    expect(sh.history(5)).not.toContain("A-2");

    sh.press("enter");
    const { before } = await ranBoth;
    expect(before.split("\n")).toContain("A-2");
    await promptBack;
    expect((await sh.run("echo framed-after-paste")).output).toBe("framed-after-paste");
  });
});
