import { readdirSync, readlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Session, SessionClosedError } from "../../src/index.js";
import { isAlive, spawnBash } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";

/** This process's open PTY master descriptors. */
function ptyMasters(): number {
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === "/dev/ptmx") count++;
    } catch {
      // closed meanwhile
    }
  }
  return count;
}

describe("close()", () => {
  it("is idempotent: concurrent and repeated calls resolve, state is closed, the program is gone", async () => {
    const sh = await spawnBash();
    const pid = sh.pid as number;
    await Promise.all([sh.close(), sh.close()]);
    await sh.close();
    expect(sh.state).toBe("closed");
    await waitFor(() => !isAlive(pid), { timeoutMs: 3_000, message: "bash to die" });
  });

  it("calls on a closed session reject (or throw) SessionClosedError", async () => {
    const sh = await spawnBash();
    await sh.close();
    await expect(sh.run("echo x")).rejects.toBeInstanceOf(SessionClosedError);
    expect(() => sh.fire("echo x")).toThrow(SessionClosedError);
    await expect(sh.interrupt()).rejects.toBeInstanceOf(SessionClosedError);
  });

  it('settles the active cell "exited"', async () => {
    const sh = await spawnBash();
    const cell = sh.fire("echo before-close; sleep 30");
    for await (const chunk of cell) if (chunk.includes("before-close")) break;
    await sh.close();
    const r = await cell.result;
    expect(r.status).toBe("exited");
    expect(r.output).toContain("before-close");
    expect(cell.status).toBe("exited");
  });

  it("kills background jobs and grandchildren, including ones that ignore SIGHUP", async () => {
    const sh = await spawnBash({ closeGraceMs: 500 });
    // Interactive bash also prints "[1] <pid>" for a background job: the pid is the last line.
    const lastLine = async (code: string) => Number((await sh.run(code)).output.split("\n").at(-1));
    const job = await lastLine("sleep 301 & echo $!");
    const nohup = await lastLine("nohup sleep 302 >/dev/null 2>&1 & echo $!");
    const grandchild = await lastLine("(sleep 303 & echo $!)");
    const trapped = await lastLine("bash -c 'trap \"\" HUP; sleep 304' >/dev/null 2>&1 & echo $!");
    const pids = [job, nohup, grandchild, trapped];
    for (const pid of pids) {
      expect(pid).toBeGreaterThan(0);
      expect(isAlive(pid)).toBe(true);
    }
    await sh.close();
    await waitFor(() => pids.every((pid) => !isAlive(pid)), { timeoutMs: 5_000, message: `pids ${pids.join(", ")} to die` });
  });

  it("frees the PTY: no master descriptor left open", async () => {
    const before = ptyMasters();
    const sh = await spawnBash();
    await sh.run("echo x");
    expect(ptyMasters()).toBe(before + 1);
    await sh.close();
    expect(ptyMasters()).toBe(before);
  });

  it("Symbol.asyncDispose closes the session", async () => {
    const sh = await Session.spawn({ command: "bash", args: ["--norc", "--noprofile"] });
    const pid = sh.pid as number;
    try {
      expect((await sh.run("echo disposable")).output).toBe("disposable");
    } finally {
      await sh[Symbol.asyncDispose]();
    }
    expect(sh.state).toBe("closed");
    await waitFor(() => !isAlive(pid), { timeoutMs: 3_000, message: "bash to die" });
  });

  it("ends a just-started or just-finished bash with SIGHUP, without waiting for the SIGKILL grace (20 tries)", async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const sh = await spawnBash({ closeGraceMs: 3_000 });
      if (attempt % 2 === 1) await sh.run("true");
      const started = performance.now();
      await sh.close();
      expect({ attempt, slow: performance.now() - started > 1_500 }).toEqual({ attempt, slow: false });
    }
  });
});
