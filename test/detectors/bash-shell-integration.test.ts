import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectors, readAsciicast, type FrameDetector } from "../../src/index.js";
import { tempDir } from "../helpers/common.js";
import { spawnBash, spawnSession } from "../helpers/sessions.js";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("bash with shell integration", () => {
  it('"auto" picks shell integration for bash and frames a simple cell', async () => {
    const sh = await spawnBash();
    expect(sh.state).toBe("idle");
    const r = await sh.run("echo hello");
    expect(r.status).toBe("done");
    expect(r.decidedBy).toBe("shell-integration");
    expect(r.output).toBe("hello");
    expect(r.exitCode).toBe(0);
    expect(r.truncated).toBe(false);
    expect(r.omittedBytes).toBe(0);
    expect(typeof r.cellId).toBe("string");
    expect(r.durationMs).toBeGreaterThan(0);
    expect(r.startedAt).toBeInstanceOf(Date);
    expect(sh.state).toBe("idle");
  });

  it("explicit detectors.shellIntegration() works the same", async () => {
    const sh = await spawnBash({ detector: detectors.shellIntegration() });
    const r = await sh.run("echo $((6 * 7))");
    expect(r.output).toBe("42");
    expect(r.decidedBy).toBe("shell-integration");
  });

  it("reports the exit status of each cell", async () => {
    const sh = await spawnBash();
    expect((await sh.run("true")).exitCode).toBe(0);
    expect((await sh.run("false")).exitCode).toBe(1);
    const r = await sh.run("(exit 7)");
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(7);
    const missing = await sh.run("no-such-command-agent-tty-xyz");
    expect(missing.status).toBe("done");
    expect(missing.exitCode).toBe(127);
    expect(missing.output).toContain("no-such-command-agent-tty-xyz");
    expect(missing.output).toMatch(/command not found/);
  });

  it("reports the shell's working directory after the cell", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-tty-cwd-")));
    temps.push(dir);
    const sh = await spawnBash({ cwd: dir });
    const first = await sh.run("pwd");
    expect(first.output).toBe(dir);
    expect(first.cwd).toBe(dir);
    const r = await sh.run("mkdir -p sub && cd sub");
    expect(r.cwd).toBe(join(dir, "sub"));
    expect(r.exitCode).toBe(0);
    const after = await sh.run("pwd");
    expect(after.output).toBe(join(dir, "sub"));
  });

  it("reports the directory after every cell, though bash says it only when it changed, also from below a nested shell that exits", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-tty-cwd-")));
    temps.push(dir);
    const sub = join(dir, "sub");
    const sh = await spawnBash({ cwd: dir });
    expect(await sh.run("mkdir sub && cd sub")).toMatchObject({ status: "done", exitCode: 0, cwd: sub });
    expect(await sh.run("echo same")).toMatchObject({ output: "same", cwd: sub });
    expect(await sh.run("cd ..")).toMatchObject({ exitCode: 0, cwd: dir });
    // Away and back within one cell: the directory did not change between the prompts.
    expect(await sh.run("cd sub; cd ..; false")).toMatchObject({ exitCode: 1, cwd: dir });
    // Back to a directory already seen.
    expect(await sh.run("cd sub")).toMatchObject({ cwd: sub });
    // The outer shell's directory changes, but it says so only once the nested one exits: that
    // mark must not be taken for the nested shell's end (whose status the next mark carries).
    const entered = await sh.run("cd .. && bash --norc");
    expect(entered.nested?.entered).toMatchObject({ name: "bash", shell: "bash", depth: 1 });
    expect(entered.cwd).toBe(dir);
    expect(await sh.run("cd sub; echo in")).toMatchObject({ output: "in", cwd: sub });
    const left = await sh.run("exit 5");
    expect(left).toMatchObject({ status: "done", exitCode: 5, cwd: dir });
    expect(left.nested?.left?.[0]).toMatchObject({ name: "bash", reason: "exit", exitCode: 5 });
    expect(await sh.run("pwd")).toMatchObject({ output: dir, cwd: dir });
  });

  it("keeps shell state between cells", async () => {
    const sh = await spawnBash();
    await sh.run('AGENT_TTY_X=persisted; f() { echo "f:$1"; }');
    const r = await sh.run('echo "$AGENT_TTY_X"; f arg');
    expect(r.output).toBe("persisted\nf:arg");
  });

  it("runs multi-line cells (loops, heredocs, functions) as one unit", async () => {
    const sh = await spawnBash();
    const loop = await sh.run('for i in 1 2 3; do\n  echo "n=$i"\ndone');
    expect(loop.output).toBe("n=1\nn=2\nn=3");
    expect(loop.exitCode).toBe(0);
    const heredoc = await sh.run("cat <<'EOF'\nline one\n  line $two\nEOF");
    expect(heredoc.output).toBe("line one\n  line $two");
    const fn = await sh.run('greet() {\n  echo "hi $1"\n  return 3\n}\ngreet bob');
    expect(fn.output).toBe("hi bob");
    expect(fn.exitCode).toBe(3);
  });

  it("output has no echoed command, no prompt and no escape sequences", async () => {
    const sh = await spawnBash({ env: { PS1: "MYPROMPT$ " } });
    const r = await sh.run("printf '\\033[1;31mred\\033[0m plain\\n'; echo second");
    expect(r.output).toBe("red plain\nsecond");
    expect(r.output).not.toContain("\x1b");
    expect(r.output).not.toContain("MYPROMPT");
    expect(r.output).not.toContain("printf");
    expect(r.output).not.toContain("\r");
  });

  it("collapses carriage-return progress redraws to what the screen finally shows", async () => {
    const sh = await spawnBash();
    const r = await sh.run("for p in 10 50 100; do printf '\\rprogress %3d%%' $p; sleep 0.05; done; printf '\\n'; echo finished");
    expect(r.output).toBe("progress 100%\nfinished");
  });

  it("collapses a shorter redraw over a longer line like a terminal does", async () => {
    const sh = await spawnBash();
    const r = await sh.run("printf 'abcdef\\rXY\\n'");
    expect(r.output).toBe("XYcdef");
  });

  it("keeps the last line printed without a trailing newline", async () => {
    const sh = await spawnBash();
    const r = await sh.run("printf 'no newline here'");
    expect(r.output).toBe("no newline here");
    expect(r.exitCode).toBe(0);
    const next = await sh.run("echo next");
    expect(next.output).toBe("next");
  });

  it("decodes multi-byte UTF-8 split across reads", async () => {
    const sh = await spawnBash();
    // 30000 three- and four-byte characters: PTY reads split them at arbitrary bytes.
    const r = await sh.run("python3 -c \"import sys; sys.stdout.write('é€😀' * 10000 + '\\n')\"");
    expect(r.status).toBe("done");
    expect(r.output).not.toContain("\uFFFD");
    expect(r.output).toBe("é€😀".repeat(10000));
  });

  it("a program's output cannot fake the end of a frame", async () => {
    const sh = await spawnBash();
    // An OSC 133-style mark and a fake agent-tty mark without the secret.
    const r = await sh.run("printf '\\033]133;D;0\\007\\033]6973;fake;D;0;/\\007'; sleep 0.3; echo real-end");
    expect(r.output).toBe("real-end");
    // Nor its working directory: a look-alike of bash's directory mark is output, not a directory.
    const before = (await sh.run("true")).cwd;
    const w = await sh.run("printf '\\033]6973;fake;W;/fake\\007'; echo w-end");
    expect(w).toMatchObject({ output: "w-end", cwd: before });
    expect(before).toMatch(/^\/./);
    expect(before).not.toBe("/fake");
  });

  it("an incomplete cell (unclosed quote) settles instead of hanging", async () => {
    const sh = await spawnBash();
    const r = await sh.run("echo 'unclosed", { timeoutMs: 5_000 });
    expect(r.status).toBe("done");
    expect(r.exitCode).not.toBe(0);
    const next = await sh.run("echo ok");
    expect(next.output).toBe("ok");
  });

  it("a cell that runs no command (a comment, a syntax error) still ends, with its status", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    await sh.run("false");
    const comment = await sh.run("# nothing to run");
    expect(comment).toMatchObject({ status: "done", output: "", exitCode: 1 });
    const broken = await sh.run("echo (");
    expect(broken.status).toBe("done");
    expect(broken.exitCode).toBe(2);
    expect(broken.output).toContain("syntax error");
    expect((await sh.run("echo ok")).output).toBe("ok");
  });

  it("cells that replace PROMPT_COMMAND, PS1 or PS0 keep being framed, with status and cwd", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    expect((await sh.run("PROMPT_COMMAND='echo from-prompt-command'")).output).toBe("from-prompt-command");
    const failed = await sh.run("cd /tmp && false");
    expect(failed).toMatchObject({ status: "done", output: "from-prompt-command", exitCode: 1, cwd: "/tmp" });
    await sh.run("PROMPT_COMMAND=; PS1='custom> '; PS0='[ran] '; PS2='more> '");
    const r = await sh.run("echo after");
    expect(r).toMatchObject({ status: "done", output: "after", exitCode: 0 });
    expect(r.raw).toContain("custom> ");
  });

  it("a resize while cells are being typed never ends one early (the prompt redraw repeats its marks)", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    for (let i = 0; i < 20; i++) {
      const cell = sh.run(`sleep 0.01; echo cell-${i}`, { onTimeout: "interrupt" });
      sh.resize(80 + (i % 2) * 40, 24 + (i % 3));
      const r = await cell;
      expect(r.output, `cell ${i}, raw ${JSON.stringify(r.raw)}`).toBe(`cell-${i}`);
      expect(r.status).toBe("done");
    }
  });

  it("100 back-to-back cells each get exactly their own output", async () => {
    const sh = await spawnBash();
    for (let index = 0; index < 100; index++) {
      const r = await sh.run(`echo cell-${index}`);
      expect({ index, output: r.output, exitCode: r.exitCode }).toEqual({ index, output: `cell-${index}`, exitCode: 0 });
    }
  });

  it("a command longer than the terminal width is not echoed into the output", async () => {
    const sh = await spawnBash({ cols: 40 });
    const words = Array.from({ length: 30 }, (_, index) => `word${index}`).join(" ");
    const r = await sh.run(`echo ${words} | wc -w`);
    expect(r.output.trim()).toBe("30");
  });

  it("raw holds the terminal's bytes, escapes included", async () => {
    const sh = await spawnBash();
    const r = await sh.run("printf '\\033[32mgreen\\033[0m\\n'");
    expect(r.output).toBe("green");
    expect(typeof r.raw).toBe("string");
    expect(r.raw).toContain("\x1b[32mgreen\x1b[0m");
    expect(r.rawOmittedBytes).toBe(0);
  });
});

describe("bash start-up files with shell integration", () => {
  function homeWithBashrc(text: string): string {
    const home = realpathSync(mkdtempSync(join(tmpdir(), "agent-tty-home-")));
    temps.push(home);
    writeFileSync(join(home, ".bashrc"), text);
    return home;
  }

  it("loads the user's ~/.bashrc, vi mode included: its keymap stays and the clear key works there", async () => {
    const home = homeWithBashrc("export FROM_BASHRC=yes\nset -o vi\nPS1='user> '\n");
    const sh = await spawnSession({ command: "bash", args: ["--noprofile"], cwd: home, env: { HOME: home }, timeoutMs: 5_000 });
    const r = await sh.run("echo $FROM_BASHRC; bind -v | grep 'set keymap'");
    expect(r.output).toBe("yes\nset keymap vi-insert");
    expect(r.raw).toContain("user> ");
    await sh.type("stray");
    expect(await sh.run("echo clean")).toMatchObject({ status: "done", output: "clean", exitCode: 0 });
  });

  it("with --norc reads no rc file, and leaves nothing of what loaded the marks: PROMPT_COMMAND is only agent-tty's, not exported", async () => {
    const home = homeWithBashrc("export FROM_BASHRC=yes\n");
    const sh = await spawnBash({ cwd: home, env: { HOME: home }, timeoutMs: 5_000 });
    expect((await sh.run("echo ${FROM_BASHRC-unset}")).output).toBe("unset");
    expect((await sh.run("printenv PROMPT_COMMAND || echo not-exported")).output).toBe("not-exported");
    expect((await sh.run('echo "${#PROMPT_COMMAND[@]} [${PROMPT_COMMAND[0]}]"')).output).toBe("2 []");
    // The clear key is bound in every keymap.
    const keys = await sh.run("for m in emacs vi-insert vi-command; do bind -m $m -p | grep -c 'C-x.C-k.: kill-whole-line'; done");
    expect(keys.output).toBe("1\n1\n1");
    const child = await sh.run("bash -i -c 'echo child-ok' 2>&1");
    expect(child.output).toBe("child-ok");
  });
});

describe("bash's clear key (Ctrl-X Ctrl-K) before a cell", () => {
  const CLEAR = "\x18\x0b";
  /** What was written to the terminal, one entry per write, from a recording of the session. */
  async function writes(file: string): Promise<string[]> {
    return (await readAsciicast(file)).events.filter((event) => event[1] === "i").map((event) => event[2]);
  }

  it("is typed only when something may be on the line: first cell, typed input, a cell that ran nothing (histverify), a pasted cell", async () => {
    const file = join(tempDir(), "input.cast");
    const sh = await spawnBash({ record: file });
    expect((await sh.run("echo 1")).output).toBe("1");
    expect((await sh.run("echo 2")).output).toBe("2");
    await sh.type("stray");
    expect((await sh.run("echo 3")).output).toBe("3");
    await sh.run("shopt -s histverify");
    // The expanded line is put back to be edited: no command ran, and it waits on the line.
    expect((await sh.run("echo !!")).output).toBe("");
    expect((await sh.run("echo 4")).output).toBe("4");
    expect((await sh.run("echo 5\necho 6")).output).toBe("5\n6");
    expect((await sh.run("echo 7")).output).toBe("7");
    expect((await sh.run("# no command")).output).toBe("");
    expect((await sh.run("echo 8")).output).toBe("8");
    await sh.close();
    expect(await writes(file)).toEqual([
      `${CLEAR}echo 1\r`,
      "echo 2\r",
      "stray",
      `${CLEAR}echo 3\r`,
      "shopt -s histverify\r",
      "echo !!\r",
      `${CLEAR}echo 4\r`,
      "\x1b[200~echo 5\necho 6\x1b[201~\r",
      `${CLEAR}echo 7\r`,
      "# no command\r",
      `${CLEAR}echo 8\r`,
    ]);
  });

  it("is typed before every cell by a detector wrapped in one that does not pass on what the session writes", async () => {
    const inner = detectors.shellIntegration();
    const wrapped: FrameDetector = {
      name: inner.name,
      markPrefix: inner.markPrefix as string,
      removesEcho: true,
      tracksPrompt: true,
      setup: (plan) => inner.setup?.(plan) ?? plan,
      attach: (io) => inner.attach?.(io),
      encode: (code) => inner.encode?.(code) ?? `${code}\r`,
      feed: (event) => inner.feed(event),
      clearLineSequence: () => inner.clearLineSequence?.() ?? "",
      dispose: () => inner.dispose?.(),
    };
    const file = join(tempDir(), "input.cast");
    const sh = await spawnBash({ detector: wrapped, record: file });
    for (const n of [1, 2, 3]) expect((await sh.run(`echo ${n}`)).output).toBe(String(n));
    await sh.close();
    expect(await writes(file)).toEqual([`${CLEAR}echo 1\r`, `${CLEAR}echo 2\r`, `${CLEAR}echo 3\r`]);
  });
});

describe("bash with repeat-enter", () => {
  it("frames cells with N empty Enters and drops the repeated prompt lines", async () => {
    const sh = await spawnBash({ detector: detectors.repeatEnter({ count: 3 }), env: { PS1: "rp$ " } });
    const r = await sh.run("echo alpha; echo beta");
    expect(r.status).toBe("done");
    expect(r.decidedBy).toBe("repeat-enter");
    expect(r.output).toBe("alpha\nbeta");
    expect(r.exitCode).toBeNull();
    const second = await sh.run("X=5; echo $((X + 1))");
    expect(second.output).toBe("6");
  });

  it("a cell that takes a while is not cut short by the Enters", async () => {
    const sh = await spawnBash({ detector: detectors.repeatEnter({ count: 3 }), env: { PS1: "rp$ " } });
    const r = await sh.run("sleep 0.4; echo slow-done");
    expect(r.output).toBe("slow-done");
  });
});
