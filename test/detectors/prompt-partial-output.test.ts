import { describe, expect, it } from "vitest";
import { detectors, type FrameDetector } from "../../src/index.js";
import { spawnSession } from "../helpers/sessions.js";

// Output without a final newline (`printf hi`): the prompt is drawn on the output's last line
// (`hi$ `). The prompt is cut from that line; what is before it is the cell's output.

const bashDetectors: Array<[string, () => FrameDetector]> = [
  ['prompt("$ ")', () => detectors.prompt("$ ")],
  ["prompt(/\\$ $/)", () => detectors.prompt(/\$ $/)],
  ["inputWait()", () => detectors.inputWait()],
];

describe("prompt and input-wait: output without a final newline", () => {
  for (const [what, make] of bashDetectors) {
    it(`bash, ${what}: \`printf hi\` ends with its output, and the next cells are their own`, async () => {
      const sh = await spawnSession({ command: "bash", args: ["--norc", "--noprofile"], env: { PS1: "$ " }, detector: make() });
      const hi = await sh.run("printf hi", { timeoutMs: 10_000 });
      expect(hi).toMatchObject({ status: "done", output: "hi" });
      expect((await sh.run("printf 'a\\nb'", { timeoutMs: 10_000 })).output).toBe("a\nb");
      // Output that itself ends like the prompt keeps it: only the prompt drawn after it goes.
      expect((await sh.run("printf 'x$ '", { timeoutMs: 10_000 })).output).toBe("x$ ");
      expect((await sh.run("echo next", { timeoutMs: 10_000 })).output).toBe("next");
      expect((await sh.run("true", { timeoutMs: 10_000 })).output).toBe("");
      expect((await sh.run("printf hi", { timeoutMs: 10_000 })).output).toBe("hi");
    });
  }

  for (const [what, make] of bashDetectors) {
    it(`bash, ${what}: a prompt that changes to end with the earlier one (\`(venv) $ \`) is the prompt from the next cell on`, async () => {
      const sh = await spawnSession({ command: "bash", args: ["--norc", "--noprofile"], env: { PS1: "$ " }, detector: make() });
      // The cell that changes it cannot tell its new start from output without a final newline.
      expect(["", "(venv) "]).toContain((await sh.run("PS1='(venv) $ '", { timeoutMs: 10_000 })).output);
      expect((await sh.run("echo hi", { timeoutMs: 10_000 })).output).toBe("hi");
      expect((await sh.run("echo again", { timeoutMs: 10_000 })).output).toBe("again");
      expect((await sh.run("printf hi", { timeoutMs: 10_000 })).output).toBe("hi");
      expect((await sh.run("true", { timeoutMs: 10_000 })).output).toBe("");
    });
  }

  for (const detector of ["auto", "inputWait"] as const) {
    it(`python3, ${detector}: print('hi', end='') ends at once with its output`, async () => {
      const py = await spawnSession({
        command: "python3",
        args: ["-q"],
        ...(detector === "auto" ? {} : { detector: detectors.inputWait() }),
        readyTimeoutMs: 15_000,
      });
      const hi = await py.run("print('hi', end='')", { timeoutMs: 5_000 });
      expect(hi).toMatchObject({ status: "done", output: "hi", decidedBy: detector === "auto" ? "prompt" : "input-wait" });
      expect((await py.run("print(6 * 7)", { timeoutMs: 5_000 })).output).toBe("42");
      expect((await py.run("x = 1", { timeoutMs: 5_000 })).output).toBe("");
    });
  }
});
