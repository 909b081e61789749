import { describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { isForegroundReading, isLinuxProcAvailable } from "../../src/pty/proc-state.js";
import { spawnSession } from "../helpers/sessions.js";

/**
 * Holds the event loop (nothing more is read from the terminal) until the
 * program is blocked reading it again: what it printed meanwhile is then in
 * the terminal, unread, when the detector judges the text that came first.
 */
function holdUntilReading(pid: number): void {
  const deadline = Date.now() + 10_000;
  while (!isForegroundReading(pid)) if (Date.now() > deadline) throw new Error("the program never blocked reading its terminal");
}

describe.runIf(isLinuxProcAvailable())("prompt confirmation (detectors.prompt, detectors.repeatEnter)", () => {
  it("a look-alike prompt whose program went on printing and is back at its prompt before it was judged does not end the cell", async () => {
    const py = await spawnSession({ command: "python3", args: ["-q"], detector: detectors.prompt(">>> ") });
    const pid = py.pid as number;
    py.on("data", (text: string) => {
      if (text.endsWith("LOOK>>> ")) holdUntilReading(pid);
    });
    const code = "import sys, time; _ = sys.stdout.write('LOOK>>> '); sys.stdout.flush(); time.sleep(0.05); print('late')";
    const result = await py.run(code);
    expect(result.status).toBe("done");
    expect(result.output).toBe("LOOK>>> late");
    // The session is in step: the next cell's output is its own.
    expect((await py.run("print(6 * 7)")).output).toBe("42");
  });

  it("repeat-enter: a run of look-alike lines the program printed before its own prompts does not end the cell early", async () => {
    const sh = await spawnSession({
      command: "bash",
      args: ["--norc", "--noprofile"],
      env: { PS1: "$ " },
      detector: detectors.repeatEnter(),
    });
    const pid = sh.pid as number;
    sh.on("data", (text: string) => {
      if (text.endsWith("\n$ ") && text.includes("fake")) holdUntilReading(pid);
    });
    // Five lines like the prompt and a sixth unfinished one, then more output after a pause.
    const result = await sh.run("echo fake; printf '$ \\n$ \\n$ \\n$ \\n$ \\n$ '; sleep 0.05; echo after");
    expect(result.status).toBe("done");
    expect(result.output).toBe("fake\n$ \n$ \n$ \n$ \n$ \n$ after");
    expect((await sh.run("echo next")).output).toBe("next");
  });

  it("repeat-enter: output ending like the prompt, then look-alike prompt lines, does not end the cell early", async () => {
    const sh = await spawnSession({
      command: "bash",
      args: ["--norc", "--noprofile"],
      env: { PS1: "$ " },
      detector: detectors.repeatEnter(),
    });
    const pid = sh.pid as number;
    sh.on("data", (text: string) => {
      if (text.endsWith("\n$ ") && text.includes("x$ ")) holdUntilReading(pid);
    });
    // A line ending like the prompt (as `printf hi` leaves `hi$ `), one prompt-like line, a third
    // unfinished one: as many prompts as after output without a final newline. Then more output.
    const result = await sh.run("printf 'x$ \\n$ \\n$ '; sleep 0.05; echo after");
    expect(result.status).toBe("done");
    expect(result.output).toBe("x$ \n$ \n$ after");
    expect((await sh.run("echo next")).output).toBe("next");
  });
});
