import { describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { spawnSession } from "../helpers/sessions.js";
import { CALC } from "../programs/fixtures/calc.js";

describe("idle detector", () => {
  it("ends the frame once output has been quiet for `ms`", async () => {
    // Long enough that a loaded machine's slow reply is not taken for the quiet after it.
    const calc = await spawnSession({ command: "node", args: [CALC, "--cooked"], detector: detectors.idle({ ms: 1_000 }) });
    const r = await calc.run("say quiet now");
    expect(r.status).toBe("done");
    expect(r.decidedBy).toBe("idle");
    expect(r.output.split("\n")[0]).toBe("quiet now");
    expect(r.output).not.toContain("say quiet now");
    expect(r.durationMs).toBeGreaterThanOrEqual(990);
  });

  it("a program printing steadily (gaps shorter than `ms`) is not cut short", async () => {
    const calc = await spawnSession({
      command: "bash",
      args: ["--norc", "--noprofile"],
      detector: detectors.idle({ ms: 400 }),
      env: { PS1: "$ " },
    });
    const r = await calc.run("for i in 1 2 3 4 5; do echo tick $i; sleep 0.1; done");
    expect(r.decidedBy).toBe("idle");
    const ticks = r.output.split("\n").filter((line) => line.startsWith("tick"));
    expect(ticks).toEqual(["tick 1", "tick 2", "tick 3", "tick 4", "tick 5"]);
  });
});
