import { describe, expect, test } from "@jest/globals";
import { useTerminal } from "agent-tty/jest";
import { notePid } from "./support.mjs";

const casts = process.env.AGENT_TTY_SAMPLE_CASTS;
const terminal = useTerminal(casts === undefined ? {} : { recordOnFailure: casts });

describe("failing sample", () => {
  test("fails on purpose after printing to two terminals", async () => {
    const sh = notePid(await terminal({ command: "bash", args: ["--norc", "--noprofile"], cols: 80, rows: 12 }));
    const py = notePid(await terminal({ command: "python3" }));
    await sh.run("echo SCREEN-MARKER-$((40+2))");
    await py.run("print('PY-TRANSCRIPT-' + str(6 * 7))");
    // A background process: it must not outlive the test either.
    const background = await sh.run("sleep 300 & echo $!");
    notePid(Number(background.output));
    expect(await sh.run("echo actual-output")).toHaveOutput("expected-output");
  });

  test("toShowOnScreen fails with the last screen", async () => {
    const sh = notePid(await terminal({ command: "bash", args: ["--norc", "--noprofile"] }));
    await sh.run("echo ONLY-THIS-IS-SHOWN");
    await expect(sh).toShowOnScreen("NEVER-SHOWN", { timeoutMs: 300 });
  });

  test("passes next to the failing ones", async () => {
    const sh = notePid(await terminal());
    expect(await sh.run("echo fine")).toHaveOutput("fine");
  });
});
