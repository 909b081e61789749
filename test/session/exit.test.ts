import { describe, expect, it } from "vitest";
import { SessionClosedError, type SessionEvent } from "../../src/index.js";
import { spawnBash, spawnSession } from "../helpers/sessions.js";
import { CALC } from "../programs/fixtures/calc.js";
import { detectors } from "../../src/index.js";

describe("a program exiting during a cell", () => {
  it('settles the cell "exited" with the exit code; its last output is not lost', async () => {
    const sh = await spawnBash();
    const exits: SessionEvent[] = [];
    sh.on("exit", (event) => exits.push(event));
    const r = await sh.run("echo last-words; exit 5");
    expect(r.status).toBe("exited");
    expect(r.exitCode).toBe(5);
    expect(r.decidedBy).toBe("exit");
    expect(r.output).toContain("last-words");
    expect(sh.exitCode).toBe(5);
    expect(sh.state).toBe("exited");
    expect(exits).toHaveLength(1);
  });

  it("a burst of output just before exit arrives whole", async () => {
    const sh = await spawnBash();
    const r = await sh.run("seq 1 20000; exit 2", { timeoutMs: 20_000 });
    expect(r.status).toBe("exited");
    expect(r.exitCode).toBe(2);
    const lines = r.output.split("\n").filter((line) => /^\d+$/.test(line));
    expect(lines.at(-1)).toBe("20000");
    expect(lines).toHaveLength(20000);
  });

  it("a prompt-detector program exiting mid-cell settles exited with its status", async () => {
    const calc = await spawnSession({ command: "node", args: [CALC, "--cooked"], detector: detectors.prompt("calc> ") });
    const r = await calc.run("exit 4");
    expect(r.status).toBe("exited");
    expect(r.exitCode).toBe(4);
    expect(r.output).toBe("bye");
  });

  it("after the program exited, run() rejects with SessionClosedError and fire() throws it", async () => {
    const sh = await spawnBash();
    await sh.run("exit 0");
    await expect(sh.run("echo nope")).rejects.toBeInstanceOf(SessionClosedError);
    expect(() => sh.fire("echo nope")).toThrow(SessionClosedError);
  });

  it("a queued cell behind an exiting cell rejects with SessionClosedError", async () => {
    const sh = await spawnBash();
    const first = sh.fire("sleep 0.2; exit 1");
    const queued = sh.fire("echo never", { queue: true });
    expect((await first.result).status).toBe("exited");
    await expect(queued.result).rejects.toBeInstanceOf(SessionClosedError);
  });
});
