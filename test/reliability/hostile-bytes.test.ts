import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnBash, spawnSession } from "../helpers/sessions.js";
import { recordRaw } from "../helpers/processes.js";

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory removed after the test. */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-tty-reliability-"));
  scratch.push(dir);
  return dir;
}

/** Clean output never carries escape sequences or carriage returns. */
function expectClean(text: string): void {
  expect(text.includes("\x1b"), "an ESC in clean output").toBe(false);
  expect(text.includes("\r"), "a CR in clean output").toBe(false);
}

describe("hostile bytes", () => {
  it("1 MB of random binary settles the cell, keeps clean output clean, and later output and the next cell intact", async () => {
    const dir = tempDir();
    const bytes = randomBytes(1_000_000);
    writeFileSync(join(dir, "noise.bin"), bytes);
    const sh = await spawnBash({ cwd: dir, timeoutMs: 20_000 });
    // After the noise: CAN and ST and BEL end whatever sequence the noise left open, as on a real terminal.
    const r = await sh.run("cat noise.bin; printf '\\030\\033\\\\\\a\\nEND-OF-NOISE\\n'");
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.output.endsWith("\nEND-OF-NOISE")).toBe(true);
    expectClean(r.output);
    const next = await sh.run("echo after-noise; echo $((6 * 7))");
    expect(next.status).toBe("done");
    expect(next.exitCode).toBe(0);
    expect(next.output).toBe("after-noise\n42");
  });

  it("invalid UTF-8 comes back as U+FFFD replacement characters, nothing around it lost", async () => {
    const sh = await spawnBash();
    const r = await sh.run(
      "printf 'a\\377\\376b\\303(c\\342\\202d\\360\\237\\230\\nnext line \\355\\240\\200 end\\n'; printf 'cut at the end \\342\\202'",
    );
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    const expected = Buffer.from([
      ...Buffer.from("a"),
      0xff,
      0xfe,
      ...Buffer.from("b"),
      0xc3,
      ...Buffer.from("(c"),
      0xe2,
      0x82,
      ...Buffer.from("d"),
      0xf0,
      0x9f,
      0x98,
      ...Buffer.from("\nnext line "),
      0xed,
      0xa0,
      0x80,
      ...Buffer.from(" end\ncut at the end "),
      0xe2,
      0x82,
    ]).toString("utf8");
    expect(r.output).toBe(expected);
    expect(r.output).toContain("\uFFFD");
    const next = await sh.run("echo 'ünïcödé still fine'");
    expect(next.output).toBe("ünïcödé still fine");
  });

  it("an unterminated OSC (window title) does not swallow the frame end: the cell settles and the next cell runs", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    const r = await sh.run("printf '\\033]0;never ends'");
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    const next = await sh.run("echo next-cell", { timeoutMs: 5_000 });
    expect(next.status).toBe("done");
    expect(next.output).toBe("next-cell");
  });

  it("an unterminated OSC does not swallow the output printed after it in the same cell", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    const r = await sh.run("printf '\\033]0;never ends'; echo; echo after-osc");
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain("after-osc");
    expectClean(r.output);
  });

  it("an unterminated DCS does not swallow the frame end", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    const r = await sh.run("printf '\\033P1;2|never ends'");
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    const next = await sh.run("echo next-cell", { timeoutMs: 5_000 });
    expect(next.output).toBe("next-cell");
  });

  it("a lone ESC at the end of a cell's output does not swallow the frame end", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    const r = await sh.run("printf 'before\\033'");
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe("before");
    const next = await sh.run("echo next-cell", { timeoutMs: 5_000 });
    expect(next.output).toBe("next-cell");
  });

  it("history() keeps the next cell's input on its own line after output that ends without a newline", async () => {
    const sh = await spawnBash();
    const first = await sh.run("printf 'no-newline'");
    expect(first.output).toBe("no-newline");
    await sh.run("echo next");
    expect(sh.history(4)).toBe("printf 'no-newline'\nno-newline\necho next\nnext");
  });

  it("an unterminated CSI cut by a newline does not swallow the following line", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    const r = await sh.run("printf '\\033[12;'; echo; echo after-csi");
    expect(r.status).toBe("done");
    expect(r.output).toContain("after-csi");
    expectClean(r.output);
  });

  it("answers to terminal queries (cursor position, device attributes, status) never reach the next cell's program", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    const raw = recordRaw(sh);
    const query = await sh.run("printf '\\033[6n\\033[c\\033[5n'; sleep 0.3");
    expect(query.status).toBe("done");
    expect(query.exitCode).toBe(0);
    // The next program reads its terminal: anything left over from the answers would arrive here.
    const reader = await sh.run('read -r -t 0.5 line; status=$?; echo "got[$line] $status"');
    expect(reader.status).toBe("done");
    // read timed out (status > 128): there was nothing to read.
    expect(reader.output).toMatch(/^got\[\] (\d+)$/);
    expect(Number(/(\d+)$/.exec(reader.output)?.[1])).toBeGreaterThan(128);
    const next = await sh.run("echo next-cell");
    expect(next.output).toBe("next-cell");
    expect(next.exitCode).toBe(0);
    expect(sh.history(3)).toBe(`got[] ${/(\d+)$/.exec(reader.output)?.[1]}\necho next-cell\nnext-cell`);
    expect(raw.text()).not.toContain("command not found");
  });

  it("a cell that queries the cursor position as its last act still lets the next cell run exactly", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    const query = await sh.run("printf '\\033[6n'");
    expect(query.status).toBe("done");
    const next = await sh.run("echo next-cell");
    expect(next.status).toBe("done");
    expect(next.exitCode).toBe(0);
    expect(next.output).toBe("next-cell");
  });

  it("output that imitates agent-tty's marks (wrong secret) and a shell prompt does not end the frame early", async () => {
    const sh = await spawnBash({ timeoutMs: 10_000 });
    const fakes = [
      "\\033]6973;fake;D;0;/\\007",
      "\\033]6973;fake;B\\007",
      "\\033]6973;;D;0;/tmp\\033\\\\",
      "\\033]133;D;0\\007\\033]133;A\\007",
      "user@host:~$ ",
    ].join("");
    const r = await sh.run(`printf '${fakes}'; sleep 0.4; echo real-end; exit_with() { return $1; }; exit_with 3`);
    expect(r.status).toBe("done");
    expect(r.decidedBy).toBe("shell-integration");
    expect(r.exitCode).toBe(3);
    expect(r.output).toBe("user@host:~$ real-end");
    expect(r.cwd).toBe(process.cwd());
  });

  it("python printing '>>> ' lines does not end the frame early", async () => {
    const sh = await spawnSession({ command: "python3", timeoutMs: 10_000 });
    const r = await sh.run("import time\nprint('>>> ')\nprint('... ')\ntime.sleep(0.4)\nprint('real-end')");
    expect(r.status).toBe("done");
    expect(r.output).toBe(">>> \n... \nreal-end");
    const next = await sh.run("6 * 7");
    expect(next.output).toBe("42");
  });

  it("python printing '>>> ' without a newline, then pausing, does not end the frame early", async () => {
    const sh = await spawnSession({ command: "python3", timeoutMs: 10_000 });
    const r = await sh.run("import sys, time\nsys.stdout.write('>>> '); sys.stdout.flush(); time.sleep(0.6); print('real-end')");
    expect(r.status).toBe("done");
    expect(r.output).toContain("real-end");
    const next = await sh.run("6 * 7");
    expect(next.output).toBe("42");
  });

  it("a '>>> ' read late, after python already printed the rest and waits again, is not taken for the prompt", async () => {
    // The terminal can hand over '>>> ' and its newline in two reads. When this process reads the
    // first one late (a busy event loop, simulated here), python is already back at its real prompt;
    // the look-alike must still not count, or the next line would be typed too early.
    const sh = await spawnSession({ command: "python3", timeoutMs: 10_000 });
    const busyUntil = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    sh.on("data", (chunk) => {
      if (chunk.endsWith(">>> ")) busyUntil(200);
    });
    const r = await sh.run(
      "import sys, time\n_ = sys.stdout.write('>>> '); sys.stdout.flush(); time.sleep(0.05); print()\nprint('second')",
    );
    expect(r.status).toBe("done");
    expect(r.output).toBe(">>> \nsecond");
    const next = await sh.run("6 * 7");
    expect(next.output).toBe("42");
  });
});
