import { describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { spawnSession } from "../helpers/sessions.js";

// Output without a final newline (`printf hi`): the first prompt after it is drawn on the output's
// last line (`hi$ `), so only the prompts that follow the Enters stand on lines of their own.

describe("repeat-enter: output without a final newline", () => {
  for (const count of [undefined, 1, 5]) {
    it(`bash: \`printf hi\` ends with its output alone (count ${count ?? "default"}), and the next cells are their own`, async () => {
      const sh = await spawnSession({
        command: "bash",
        args: ["--norc", "--noprofile"],
        env: { PS1: "$ " },
        detector: detectors.repeatEnter(count === undefined ? {} : { count }),
      });
      const hi = await sh.run("printf hi", { timeoutMs: 10_000 });
      expect(hi).toMatchObject({ status: "done", decidedBy: "repeat-enter", output: "hi" });
      expect((await sh.run("printf 'a\\nb'", { timeoutMs: 10_000 })).output).toBe("a\nb");
      // Output that itself ends like the prompt keeps it: only the prompt drawn after it goes.
      expect((await sh.run("printf 'x$ '", { timeoutMs: 10_000 })).output).toBe("x$ ");
      expect((await sh.run("echo next", { timeoutMs: 10_000 })).output).toBe("next");
      expect((await sh.run("true", { timeoutMs: 10_000 })).output).toBe("");
    });
  }

  it("python3: print(..., end='') ends with its output alone", async () => {
    const py = await spawnSession({ command: "python3", args: ["-q"], detector: detectors.repeatEnter() });
    const hi = await py.run("print('hi', end='')", { timeoutMs: 10_000 });
    expect(hi).toMatchObject({ status: "done", output: "hi" });
    expect((await py.run("print(6 * 7)", { timeoutMs: 10_000 })).output).toBe("42");
  });
});
