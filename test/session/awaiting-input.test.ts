import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Session } from "../../src/index.js";
import { spawnBash, spawnSession } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";
import { settledFlag, shq, tempDir } from "../helpers/common.js";

/** Every status poll() and activity show while `promise` is pending, sampled every 20 ms. */
async function sampleWhile(sh: Session, promise: Promise<unknown>): Promise<Set<string>> {
  const seen = new Set<string>();
  const flag = settledFlag(promise);
  while (!flag.settled) {
    seen.add(`poll:${sh.poll()?.status ?? "none"}`);
    seen.add(`activity:${sh.activity}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return seen;
}

describe("awaiting_input: a program blocked reading the terminal", () => {
  it("run({ untilInput }) settles on `read -p` with the question as output; type() and wait() finish the same cell", async () => {
    const sh = await spawnBash();
    const asked = await sh.run(`read -p "Your name? " n; echo "hello $n"`, { untilInput: true, timeoutMs: 10_000 });
    expect(asked.status).toBe("awaiting_input");
    expect(asked.output.trimEnd()).toBe("Your name?");
    expect(asked.exitCode).toBeNull();
    expect(sh.activity).toBe("awaiting_input");
    expect(sh.poll()).toMatchObject({ cellId: asked.cellId, status: "awaiting_input" });
    expect(sh.state).toBe("busy");
    expect(sh.activeCell?.id).toBe(asked.cellId);

    sh.type("Ada\n");
    const done = await sh.wait();
    expect(done).toMatchObject({ cellId: asked.cellId, status: "done", exitCode: 0 });
    expect(done.output).toBe("Your name? Ada\nhello Ada");
    expect(sh.activity).toBe("idle");
    expect(sh.poll()).toMatchObject({ cellId: asked.cellId, status: "done" });
  });

  it("a silent `read -s` password prompt is awaiting_input; the answer is not in the output", async () => {
    const sh = await spawnBash();
    const asked = await sh.run(`read -s -p "Password: " pw; echo; echo "got \${#pw} chars"`, { untilInput: true, timeoutMs: 10_000 });
    expect(asked.status).toBe("awaiting_input");
    expect(asked.output.trimEnd()).toBe("Password:");
    sh.type("s3cret\n");
    const done = await sh.wait();
    expect(done.status).toBe("done");
    expect(done.output).toContain("got 6 chars");
    expect(done.output).not.toContain("s3cret");
  });

  it("python input() (readline loaded, waiting in select) is awaiting_input", async () => {
    const sh = await spawnBash();
    const script = `import readline\nx = input("Enter value: ")\nprint("got", x.upper())`;
    const asked = await sh.run(`python3 -c ${shq(script)}`, { untilInput: true, timeoutMs: 15_000 });
    expect(asked.status).toBe("awaiting_input");
    expect(asked.output.trimEnd()).toBe("Enter value:");
    expect(sh.activity).toBe("awaiting_input");
    sh.type("abc\n");
    const done = await sh.wait();
    expect(done.status).toBe("done");
    expect(done.output.split("\n")).toContain("got ABC");
  });

  it("input() in a python REPL session is awaiting_input and wait() returns the REPL cell's output", async () => {
    const sh = await spawnSession({ command: "python3" });
    const asked = await sh.run(`answer = input("Continue? ")`, { untilInput: true, timeoutMs: 15_000 });
    expect(asked.status).toBe("awaiting_input");
    expect(asked.output.trimEnd()).toBe("Continue?");
    sh.type("yes\n");
    expect((await sh.wait()).status).toBe("done");
    expect((await sh.run("print(answer * 2)")).output).toBe("yesyes");
  });

  it("an apt-style `Do you want to continue? [Y/n]` script is awaiting_input with everything printed so far; `y` completes it", async () => {
    const dir = tempDir();
    const script = join(dir, "fake-apt.sh");
    writeFileSync(
      script,
      [
        "#!/bin/bash",
        'echo "Reading package lists... Done"',
        'echo "The following NEW packages will be installed:"',
        'echo "  foo"',
        'read -r -p "Do you want to continue? [Y/n] " answer',
        'case "$answer" in',
        '  [Yy]*|"") echo "Setting up foo (1.0) ..."; echo "foo installed" ;;',
        '  *) echo "Abort."; exit 1 ;;',
        "esac",
        "",
      ].join("\n"),
    );
    chmodSync(script, 0o755);
    const sh = await spawnBash();
    const asked = await sh.run(shq(script), { untilInput: true, timeoutMs: 10_000 });
    expect(asked.status).toBe("awaiting_input");
    expect(asked.output.trimEnd()).toBe(
      "Reading package lists... Done\nThe following NEW packages will be installed:\n  foo\nDo you want to continue? [Y/n]",
    );
    expect(sh.activity).toBe("awaiting_input");
    expect(sh.poll()?.status).toBe("awaiting_input");
    expect(sh.poll()?.output).toBe(asked.output);

    sh.type("y\n");
    const done = await sh.wait({ timeoutMs: 10_000 });
    expect(done).toMatchObject({ cellId: asked.cellId, status: "done", exitCode: 0 });
    expect(done.output).toBe(
      "Reading package lists... Done\nThe following NEW packages will be installed:\n  foo\n" +
        "Do you want to continue? [Y/n] y\nSetting up foo (1.0) ...\nfoo installed",
    );
  });

  it("a second question after an answer is awaiting_input again: wait({ untilInput }) stops at each", async () => {
    const sh = await spawnBash();
    const first = await sh.run(`read -p "first? " a; read -p "second? " b; echo "$a+$b"`, { untilInput: true, timeoutMs: 10_000 });
    expect(first.status).toBe("awaiting_input");
    sh.type("1\n");
    const second = await sh.wait({ untilInput: true });
    expect(second.status).toBe("awaiting_input");
    expect(second.cellId).toBe(first.cellId);
    expect(second.output.trimEnd()).toBe("first? 1\nsecond?");
    sh.type("2\n");
    const done = await sh.wait();
    expect(done.output.split("\n")).toContain("1+2");
  });

  it("a silent bash busy loop is never reported as awaiting_input", async () => {
    const sh = await spawnBash();
    const cell = sh.fire(`end=$(( \${EPOCHREALTIME/./} + 1200000 )); while (( \${EPOCHREALTIME/./} < end )); do :; done; echo busy-done`);
    const seen = await sampleWhile(sh, cell.result);
    const result = await cell.result;
    expect(result.status).toBe("done");
    expect(result.output).toBe("busy-done");
    expect(seen).toContain("activity:running");
    expect([...seen].filter((entry) => entry.endsWith("awaiting_input"))).toEqual([]);
  });

  it("a silent python busy loop is never reported as awaiting_input", async () => {
    const sh = await spawnBash();
    const script = "import time\nend = time.time() + 1.2\nwhile time.time() < end:\n    pass\nprint('py-busy-done')";
    const cell = sh.fire(`python3 -c ${shq(script)}`);
    const seen = await sampleWhile(sh, cell.result);
    const result = await cell.result;
    expect(result.output).toBe("py-busy-done");
    expect(seen).toContain("poll:running");
    expect([...seen].filter((entry) => entry.endsWith("awaiting_input"))).toEqual([]);
  });

  it("a quiet `sleep` is running, not awaiting_input", async () => {
    const sh = await spawnBash();
    const cell = sh.fire("sleep 1; echo slept");
    const seen = await sampleWhile(sh, cell.result);
    expect((await cell.result).output).toBe("slept");
    expect(seen).toContain("activity:running");
    expect([...seen].filter((entry) => entry.endsWith("awaiting_input"))).toEqual([]);
  });

  it("run() without untilInput does not settle on awaiting_input; it resolves once the frame ends", async () => {
    const sh = await spawnBash();
    const pending = sh.run(`read -p "Continue? " a; echo "answer=$a"`, { timeoutMs: 10_000 });
    const flag = settledFlag(pending);
    await waitFor(() => sh.activity === "awaiting_input", { message: "the read to be awaiting input" });
    expect(sh.poll()?.status).toBe("awaiting_input");
    expect(flag.settled).toBe(false);

    sh.type("ok\n");
    const result = await pending;
    expect(result.status).toBe("done");
    expect(result.output).toBe("Continue? ok\nanswer=ok");
  });

  it("cell.status shows awaiting_input while it holds, and cell.result waits for the final status", async () => {
    const sh = await spawnBash();
    const cell = sh.fire(`read -p "name? " n; echo "n=$n"`);
    const flag = settledFlag(cell.result);
    await waitFor(() => cell.status === "awaiting_input", { message: "cell.status awaiting_input" });
    expect(flag.settled).toBe(false);
    sh.type("x\n");
    expect((await cell.result).status).toBe("done");
    expect(cell.status).toBe("done");
  });
});

describe("awaiting_input: typed input not yet seen to reach the program", () => {
  // Under load Linux hands what is typed to the program late (a kernel work queue, flush_to_ldisc,
  // seen 300-480 ms late): the answer waits in the kernel while the program sleeps on in the wait it
  // was in before, nothing printed, as if unanswered. Text typed without Enter to a program that
  // reads lines with echo off waits in the kernel the same way (the terminal keeps it until the line
  // ends), without load: this program looks at the terminal for half a second, then takes what is
  // there and answers.
  const lateAnswer = [
    "import os, select, sys, termios",
    "saved = termios.tcgetattr(0)",
    "quiet = termios.tcgetattr(0)",
    "quiet[3] &= ~termios.ECHO",
    "termios.tcsetattr(0, termios.TCSANOW, quiet)",
    "sys.stdout.write('Your name? '); sys.stdout.flush()",
    "select.select([0], [], [], 0.5)",
    "raw = termios.tcgetattr(0)",
    "raw[3] &= ~termios.ICANON",
    "raw[6][termios.VMIN] = 0",
    "raw[6][termios.VTIME] = 0",
    "termios.tcsetattr(0, termios.TCSANOW, raw)",
    "data = os.read(0, 100)",
    "termios.tcsetattr(0, termios.TCSANOW, saved)",
    "print()",
    "print('hello', data.decode())",
  ].join("\n");

  it("an answer still in the kernel (the program slept on, nothing printed) does not make the cell awaiting_input again", async () => {
    const sh = await spawnBash();
    const asked = await sh.run(`python3 -c ${shq(lateAnswer)}`, { untilInput: true, timeoutMs: 15_000 });
    expect(asked.status).toBe("awaiting_input");
    expect(asked.output.trimEnd()).toBe("Your name?");
    sh.type("Ada");
    const answered = await sh.wait({ untilInput: true, timeoutMs: 15_000 });
    expect(answered).toMatchObject({ cellId: asked.cellId, status: "done", exitCode: 0 });
    expect(answered.output).toBe("Your name? \nhello Ada");
  });

  it("a program that takes an answer silently and waits again is awaiting_input again", async () => {
    const sh = await spawnBash();
    const first = await sh.run(`read -s -p "Password: " a; read -s b; echo "got $a$b"`, { untilInput: true, timeoutMs: 10_000 });
    expect(first.status).toBe("awaiting_input");
    sh.type("1\n");
    const second = await sh.wait({ untilInput: true, timeoutMs: 10_000 });
    expect(second).toMatchObject({ cellId: first.cellId, status: "awaiting_input" });
    expect(second.output.trimEnd()).toBe("Password:");
    sh.type("2\n");
    const done = await sh.wait({ timeoutMs: 10_000 });
    expect(done).toMatchObject({ cellId: first.cellId, status: "done", exitCode: 0 });
    expect(done.output).toBe("Password: got 12");
  });
});
