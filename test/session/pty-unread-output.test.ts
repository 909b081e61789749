import { afterEach, describe, expect, it } from "vitest";
import { isForegroundReading, isLinuxProcAvailable } from "../../src/pty/proc-state.js";
import { spawnPty, type PtyProcess } from "../../src/pty/spawn.js";

const started: { pty: PtyProcess; exited: Promise<void> }[] = [];

afterEach(async () => {
  for (const { pty, exited } of started.splice(0)) {
    pty.kill("SIGKILL");
    await exited;
    pty.destroy();
  }
});

function start(code: string, onData: (text: string) => void): PtyProcess {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  let exit!: () => void;
  const exited = new Promise<void>((resolve) => (exit = resolve));
  const pty = spawnPty(
    { command: "python3", args: ["-c", code], cwd: process.cwd(), env: { ...env, TERM: "xterm-256color" } },
    { cols: 80, rows: 24 },
    { onData, onExit: () => exit() },
  );
  started.push({ pty, exited });
  return pty;
}

describe.runIf(isLinuxProcAvailable())("PtyProcess.hasUnreadOutput", () => {
  it("finds what the program printed before it blocked reading, and hands it over whole, after the call, before anything else", async () => {
    const seen: string[] = [];
    const pty = start(
      "import sys; sys.stdout.write('one>>> '); sys.stdout.flush(); sys.stdout.write('two\\n>>> '); sys.stdout.flush(); input()",
      (text) => seen.push(text),
    );
    // The event loop is held: nothing is read until the program waits for input.
    const deadline = Date.now() + 10_000;
    while (!isForegroundReading(pty.pid)) if (Date.now() > deadline) throw new Error("python never blocked reading");
    expect(seen).toEqual([]);
    expect(pty.hasUnreadOutput()).toBe(true);
    // Not inside the call: whoever asked finishes first.
    expect(seen).toEqual([]);
    await Promise.resolve();
    expect(seen.join("")).toBe("one>>> two\r\n>>> ");
    expect(pty.hasUnreadOutput()).toBe(false);
    expect(seen.join("")).toBe("one>>> two\r\n>>> ");
  });

  it("is false once everything was read, and after the program is gone", async () => {
    let text = "";
    const pty = start("print('ready', flush=True); input()", (chunk) => (text += chunk));
    const deadline = Date.now() + 10_000;
    while (!text.includes("ready\r\n") || !isForegroundReading(pty.pid)) {
      if (Date.now() > deadline) throw new Error("python never blocked reading");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(pty.hasUnreadOutput()).toBe(false);
    pty.destroy();
    expect(pty.hasUnreadOutput()).toBe(false);
  });
});
