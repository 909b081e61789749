import { describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { spawnSession } from "../helpers/sessions.js";

// Under load Linux hands what is written to the terminal to the program late (a kernel work queue,
// flush_to_ldisc, seen 300-480 ms late): the cell's code waits in the kernel while the program sleeps
// on at its prompt, nothing printed, as if it waited for the next cell. Text that does not end a line
// waits in the kernel the same way, without load: this program reads lines with echo off and with
// Enter (`\r`) not ending a line, looks at the terminal once a second, and only then takes what was
// typed (asleep and silent meanwhile). `silent` is taken without printing anything, not even the
// prompt; any other line is echoed when taken (as a line editor does), answered in capitals, and
// the prompt drawn again.
const lateReader = [
  "import os, select, sys, termios",
  "lines = termios.tcgetattr(0)",
  "lines[0] &= ~termios.ICRNL",
  "lines[3] &= ~termios.ECHO",
  "termios.tcsetattr(0, termios.TCSANOW, lines)",
  "raw = termios.tcgetattr(0)",
  "raw[3] &= ~termios.ICANON",
  "raw[6][termios.VMIN] = 0",
  "raw[6][termios.VTIME] = 0",
  "typed = b''",
  "prompt = True",
  "while True:",
  "    if prompt:",
  "        sys.stdout.write('> '); sys.stdout.flush()",
  "    while b'\\r' not in typed:",
  "        select.select([0], [], [], 1.0)",
  "        termios.tcsetattr(0, termios.TCSANOW, raw)",
  "        typed += os.read(0, 1000)",
  "        termios.tcsetattr(0, termios.TCSANOW, lines)",
  "    line, _, typed = typed.partition(b'\\r')",
  "    prompt = line != b'silent'",
  "    if prompt:",
  "        print(line.decode())",
  "        print(line.decode().upper())",
].join("\n");

/** The late reader under inputWait(), with a fallback quiet long enough to tell from the ordinary one. */
function spawnLateReader() {
  return spawnSession({
    command: "python3",
    args: ["-c", lateReader],
    detector: detectors.inputWait({ fallbackQuietMs: 5_000 }),
    readyTimeoutMs: 15_000,
  });
}

describe("inputWait(): a cell's code not yet seen to reach the program", () => {
  it("does not end the cell while the code is still in the kernel (the program asleep at its prompt, nothing printed)", async () => {
    const session = await spawnLateReader();
    const cell = await session.run("hello", { timeoutMs: 15_000 });
    expect(cell).toMatchObject({ status: "done", decidedBy: "input-wait", output: "HELLO" });
    expect((await session.run("again", { timeoutMs: 15_000 })).output).toBe("AGAIN");
  });

  it("ends a cell the program took silently once it ran, without waiting for the fallback quiet", async () => {
    const session = await spawnLateReader();
    const cell = await session.run("silent", { timeoutMs: 15_000 });
    expect(cell).toMatchObject({ status: "done", decidedBy: "input-wait", output: "" });
    // Taken at the program's next look (within a second), then a quiet spell: well before the 5 s fallback.
    expect(cell.durationMs).toBeLessThan(4_000);
    // And the cell after it is its own.
    expect((await session.run("next", { timeoutMs: 15_000 })).output).toBe("NEXT");
  });
});
