import { describe, expect, test } from "@jest/globals";
import { useTerminal } from "agent-tty/jest";
import { notePid } from "./support.mjs";

const casts = process.env.AGENT_TTY_SAMPLE_CASTS;
const terminal = useTerminal(casts === undefined ? {} : { recordOnFailure: casts });

describe("passing sample", () => {
  test("python adds, the screen shows the prompt again", async () => {
    const py = notePid(await terminal({ command: "python3" }));
    expect(await py.run("1 + 1")).toHaveOutput("2");
    expect(await py.run("print('a' * 3)")).toHaveOutput(/^a{3}$/);
    await expect(py).toShowOnScreen(/>>> $/m);
  });

  test("bash exit codes and statuses", async () => {
    const sh = notePid(await terminal({ command: "bash", args: ["--norc", "--noprofile"] }));
    expect(await sh.run("true")).toHaveExitCode(0);
    expect(await sh.run("exit_with() { return $1; }; exit_with 3")).toHaveExitCode(3);
    expect(await sh.run("sleep 5", { timeoutMs: 200, onTimeout: "interrupt" })).toHaveStatus("timeout");
    expect(await sh.run("echo ok")).not.toHaveOutput("nope");
    await expect(sh).not.toShowOnScreen("never printed", { timeoutMs: 100 });
  });
});

describe("sessions end with their test (tests of a file run one after another)", () => {
  let previous;

  test("a test leaves a session open", async () => {
    const sh = notePid(await terminal({ command: "bash", args: ["--norc", "--noprofile"] }));
    previous = sh.pid;
    expect(await sh.run("echo left-open")).toHaveOutput("left-open");
  });

  test("the next test starts after its process is gone", () => {
    expect(previous).toBeGreaterThan(0);
    expect(() => process.kill(previous, 0)).toThrow();
  });
});
