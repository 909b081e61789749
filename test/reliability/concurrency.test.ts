import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionBusyError, SessionManager, type CellResult, type Session, type SessionEvent } from "../../src/index.js";
import { spawnBash, track, trackManager } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";
import { descendants, openFds, recordRaw } from "../helpers/processes.js";

const CALLS = 100;

/** The code of call `index`: its output (`ran-<1000 + index>`) never appears in its own text. */
function code(index: number): string {
  return `echo "ran-$((1000 + ${index}))"`;
}

/** Handles of the event loop (timers, sockets, child processes…), by kind. */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

describe("concurrency", () => {
  it(`${CALLS} simultaneous run() calls on one session: exactly one runs, the other ${CALLS - 1} reject with SessionBusyError and write nothing`, async () => {
    const sh = await spawnBash();
    const raw = recordRaw(sh);
    const fired: SessionEvent[] = [];
    sh.on("cell", (event) => {
      if (event.type === "fired") fired.push(event);
    });
    const outcomes = await Promise.allSettled(Array.from({ length: CALLS }, (_, index) => sh.run(code(index))));
    const ran = outcomes.filter((outcome): outcome is PromiseFulfilledResult<CellResult> => outcome.status === "fulfilled");
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    expect(ran).toHaveLength(1);
    expect(refused).toHaveLength(CALLS - 1);
    expect(outcomes[0]?.status).toBe("fulfilled");
    const winner = ran[0]?.value as CellResult;
    expect(winner.status).toBe("done");
    expect(winner.output).toBe("ran-1000");
    for (const { reason } of refused) {
      expect(reason).toBeInstanceOf(SessionBusyError);
      expect((reason as SessionBusyError).code).toBe("ERR_SESSION_BUSY");
      expect((reason as SessionBusyError).activeCellId).toBe(winner.cellId);
    }
    expect(fired).toHaveLength(1);
    // Nothing of the 99 refused cells reached the terminal: not their text, not their output.
    const text = raw.text();
    for (let index = 1; index < CALLS; index++) {
      expect(text).not.toContain(`1000 + ${index})`);
      expect(text).not.toContain(`ran-${1000 + index}`);
    }
    expect(sh.history(1000)).toBe(`${code(0)}\nran-1000`);
    expect(sh.state).toBe("idle");
    expect((await sh.run("echo after")).output).toBe("after");
  });

  it(`${CALLS} simultaneous run() calls with { queue: true } all run, one at a time, in order, each with its own output`, async () => {
    const sh = await spawnBash();
    const finished: number[] = [];
    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, index) =>
        sh.run(code(index), { queue: true }).then((result) => {
          finished.push(index);
          return result;
        }),
      ),
    );
    expect(finished).toEqual(Array.from({ length: CALLS }, (_, index) => index));
    results.forEach((result, index) => {
      expect(result.status).toBe("done");
      expect(result.exitCode).toBe(0);
      expect(result.code).toBe(code(index));
      expect(result.output).toBe(`ran-${1000 + index}`);
    });
    expect(new Set(results.map((result) => result.cellId)).size).toBe(CALLS);
    // Each cell started only after the previous one ended.
    for (let index = 1; index < CALLS; index++) {
      const previous = results[index - 1] as CellResult;
      const current = results[index] as CellResult;
      expect(current.startedAt.getTime()).toBeGreaterThanOrEqual(previous.startedAt.getTime());
    }
    const expectedHistory = Array.from({ length: CALLS }, (_, index) => `${code(index)}\nran-${1000 + index}`).join("\n");
    expect(sh.history(2 * CALLS)).toBe(expectedHistory);
    expect(sh.state).toBe("idle");
  });

  it("queued fire() calls report 'queued' until their turn and the busy check still refuses unqueued calls meanwhile", async () => {
    const sh = await spawnBash();
    const first = sh.fire("sleep 0.3; echo first");
    const queued = Array.from({ length: 10 }, (_, index) => sh.fire(code(index), { queue: true }));
    for (const cell of queued) expect(cell.status).toBe("queued");
    expect(() => sh.fire("echo refused")).toThrow(SessionBusyError);
    expect((await first.result).output).toBe("first");
    const outputs = await Promise.all(queued.map(async (cell) => (await cell.result).output));
    expect(outputs).toEqual(Array.from({ length: 10 }, (_, index) => `ran-${1000 + index}`));
  });

  it("200 sessions opened and closed in waves of 20 leave no process, file descriptor, temp file or handle behind", async () => {
    const waves = 10;
    const width = 20;
    const privateTmp = mkdtempSync(join(tmpdir(), "agent-tty-waves-"));
    const savedTmp = process.env["TMPDIR"];
    process.env["TMPDIR"] = privateTmp;
    try {
      // Warm up once, so what node and node-pty open for good is part of the baseline.
      const warm = await spawnBash();
      await warm.close();
      await waitFor(() => descendants().length === 0, { message: "the warm-up session's processes to go" });
      const baseFds = openFds();
      const baseResources = activeResources();
      const pids: number[] = [];
      for (let wave = 0; wave < waves; wave++) {
        let sessions: Session[];
        if (wave % 2 === 0) {
          sessions = await Promise.all(Array.from({ length: width }, () => spawnBash({ closeGraceMs: 500 })));
        } else {
          const manager = trackManager(new SessionManager({ maxSessions: width }));
          sessions = await Promise.all(
            Array.from({ length: width }, (_, index) =>
              manager.create(`wave${wave}-${index}`, { command: "bash", args: ["--norc", "--noprofile"], closeGraceMs: 500 }).then(track),
            ),
          );
        }
        const results = await Promise.all(sessions.map((sh) => sh.run("echo $$")));
        results.forEach((result, index) => {
          expect(result.status).toBe("done");
          expect(result.output).toBe(String(sessions[index]?.pid));
        });
        pids.push(...sessions.map((sh) => sh.pid as number));
        await Promise.all(sessions.map((sh) => sh.close()));
        expect(sessions.every((sh) => sh.state === "closed")).toBe(true);
      }
      expect(new Set(pids).size).toBe(waves * width);
      await waitFor(() => descendants().length === 0, {
        timeoutMs: 5_000,
        message: "every child process to be gone",
      }).catch(() => {
        throw new Error(`child processes left: ${JSON.stringify(descendants())}`);
      });
      await waitFor(() => openFds() <= baseFds, { timeoutMs: 5_000, message: "file descriptors back to baseline" }).catch(() => {
        throw new Error(`open fds: ${openFds()} (baseline ${baseFds})`);
      });
      expect(readdirSync(privateTmp)).toEqual([]);
      await waitFor(
        () => {
          const now = activeResources();
          return Object.entries(now).every(([kind, count]) => count <= (baseResources[kind] ?? 0));
        },
        { timeoutMs: 5_000, message: "event-loop handles back to baseline" },
      ).catch(() => {
        throw new Error(`handles now ${JSON.stringify(activeResources())}, baseline ${JSON.stringify(baseResources)}`);
      });
    } finally {
      if (savedTmp === undefined) delete process.env["TMPDIR"];
      else process.env["TMPDIR"] = savedTmp;
      rmSync(privateTmp, { recursive: true, force: true });
    }
  }, 120_000);
});
