import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AgentTtyError, SessionBusyError, type CellResult } from "../../src/index.js";
import { recordRaw, seen, spawnBash } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";

/** Command names of the processes whose parent is `pid`. */
function childCommands(pid: number): string[] {
  const names: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === pid) names.push(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
    } catch {
      // gone meanwhile
    }
  }
  return names;
}

describe("one cell at a time", () => {
  it("busy session rejects run() with SessionBusyError carrying activeCellId and writes nothing to the terminal", async () => {
    const sh = await spawnBash();
    const raw = recordRaw(sh);
    const first = sh.fire("sleep 0.5; echo first-done");
    expect(sh.state).toBe("busy");
    expect(sh.activeCell?.id).toBe(first.id);
    expect(sh.activeCell?.code).toBe("sleep 0.5; echo first-done");
    expect(sh.activeCell?.startedAt).toBeInstanceOf(Date);

    const second = sh.run("echo SECOND_MARKER_$((40 + 2))");
    await expect(second).rejects.toBeInstanceOf(SessionBusyError);
    const error = (await second.catch((caught: unknown) => caught)) as SessionBusyError;
    expect(error).toBeInstanceOf(AgentTtyError);
    expect(error.code).toBe("ERR_SESSION_BUSY");
    expect(error.activeCellId).toBe(first.id);

    const firstResult = await first.result;
    expect(firstResult.status).toBe("done");
    expect(firstResult.output).toBe("first-done");
    // Nothing of the refused cell reached the terminal: neither its text nor its result.
    expect(raw.text()).not.toContain("SECOND_MARKER");
    // (Not a bare "42": the shell-integration marks carry a random secret that may contain it.)
    expect(raw.text()).not.toMatch(/SECOND_MARKER|\n42\r?\n/);
    expect(sh.history(50)).not.toContain("SECOND_MARKER");
    const after = await sh.run("echo after");
    expect(after.output).toBe("after");
  });

  it("busy session makes fire() throw synchronously", async () => {
    const sh = await spawnBash();
    const raw = recordRaw(sh);
    const first = sh.fire("sleep 0.3");
    let error: unknown;
    try {
      sh.fire("echo FIRE_MARKER");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SessionBusyError);
    expect((error as SessionBusyError).activeCellId).toBe(first.id);
    await first.result;
    expect(raw.text()).not.toContain("FIRE_MARKER");
  });

  it("{ queue: true } waits its turn and cells run in order", async () => {
    const sh = await spawnBash();
    const order: string[] = [];
    const first = sh.fire("sleep 0.3; echo A");
    const b = sh.run("echo B", { queue: true }).then((r) => {
      order.push(r.output);
      return r;
    });
    const c = sh.run("echo C", { queue: true }).then((r) => {
      order.push(r.output);
      return r;
    });
    const a = await first.result;
    order.unshift(a.output);
    const [rb, rc] = await Promise.all([b, c]);
    expect(order).toEqual(["A", "B", "C"]);
    expect(rb.status).toBe("done");
    expect(rc.status).toBe("done");
    expect(rb.startedAt.getTime()).toBeGreaterThanOrEqual(a.startedAt.getTime() + a.durationMs - 5);
  });

  it('fire({ queue: true }) returns at once with status "queued" until the cell starts', async () => {
    const sh = await spawnBash();
    const first = sh.fire("sleep 0.3; echo one");
    const queued = sh.fire("echo two", { queue: true });
    expect(typeof queued.id).toBe("string");
    expect(queued.id).not.toBe(first.id);
    expect(queued.status).toBe("queued");
    expect(sh.poll(queued.id)?.status).toBe("queued");
    expect(sh.activeCell?.id).toBe(first.id);
    await first.result;
    const r = await queued.result;
    expect(queued.status).toBe("done");
    expect(r.output).toBe("two");
  });
});

describe("timeouts", () => {
  it('a timeout resolves "timeout" and keeps the lock (timed_out) until the frame ends by itself', async () => {
    const sh = await spawnBash();
    const raw = recordRaw(sh);
    const r = await sh.run("sleep 1; echo late", { timeoutMs: 300 });
    expect(r.status).toBe("timeout");
    expect(r.exitCode).toBeNull();
    expect(r.decidedBy).toBe("timeout");
    expect(sh.state).toBe("timed_out");
    const busy = await sh.run("echo BUSY_MARKER").catch((caught: unknown) => caught);
    expect(busy).toBeInstanceOf(SessionBusyError);
    expect((busy as SessionBusyError).activeCellId).toBe(r.cellId);
    await waitFor(() => sh.state === "idle", { timeoutMs: 5_000, message: "the timed-out cell's prompt" });
    expect(raw.text()).not.toContain("BUSY_MARKER");
    const next = await sh.run("echo next");
    expect(next.output).toBe("next");
  });

  it("interrupt() releases a timed-out session", async () => {
    const sh = await spawnBash();
    const r = await sh.run("sleep 30", { timeoutMs: 300 });
    expect(r.status).toBe("timeout");
    expect(sh.state).toBe("timed_out");
    await sh.interrupt();
    expect(sh.state).toBe("idle");
    const next = await sh.run("echo back");
    expect(next.output).toBe("back");
    expect(next.durationMs).toBeLessThan(5_000);
  });

  it('{ onTimeout: "interrupt" } sends Ctrl-C, still reports "timeout" and releases the lock', async () => {
    const sh = await spawnBash();
    const started = Date.now();
    const r = await sh.run("sleep 30", { timeoutMs: 300, onTimeout: "interrupt" });
    expect(r.status).toBe("timeout");
    expect(r.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sh.state).toBe("idle");
    const next = await sh.run("echo free");
    expect(next.output).toBe("free");
  });

  it("the session's timeoutMs is the default per-cell timeout", async () => {
    const sh = await spawnBash({ timeoutMs: 300 });
    const r = await sh.run("sleep 30");
    expect(r.status).toBe("timeout");
    await sh.interrupt();
  });
});

describe("interrupt and AbortSignal", () => {
  it('interrupt() stops the running cell and settles it "interrupted"', async () => {
    const sh = await spawnBash();
    const cell = sh.fire("echo go; sleep 30");
    await seen(cell, "go");
    await waitFor(() => childCommands(sh.pid as number).includes("sleep"), { timeoutMs: 5_000, message: "sleep to start" });
    const result = await sh.interrupt();
    expect(result?.status).toBe("interrupted");
    const r = await cell.result;
    expect(r.status).toBe("interrupted");
    expect(r.exitCode).toBeNull();
    expect(r.output).toContain("go");
    expect(cell.status).toBe("interrupted");
    expect(sh.state).toBe("idle");
    expect((await sh.run("echo alive")).output).toBe("alive");
  });

  it("interrupt() with no active cell resolves undefined", async () => {
    const sh = await spawnBash();
    await expect(sh.interrupt()).resolves.toBeUndefined();
  });

  it("an already-aborted signal rejects with its reason and writes nothing", async () => {
    const sh = await spawnBash();
    const raw = recordRaw(sh);
    const controller = new AbortController();
    const reason = new Error("aborted before start");
    controller.abort(reason);
    await expect(sh.run("echo PREABORT_MARKER", { signal: controller.signal })).rejects.toBe(reason);
    expect(() => sh.fire("echo PREABORT_MARKER", { signal: controller.signal })).toThrow(reason);
    expect(sh.state).toBe("idle");
    const next = await sh.run("echo clean");
    expect(next.output).toBe("clean");
    expect(raw.text()).not.toContain("PREABORT_MARKER");
  });

  it('aborting mid-cell interrupts it and settles "interrupted"', async () => {
    const sh = await spawnBash();
    const controller = new AbortController();
    const cell = sh.fire("sleep 30", { signal: controller.signal });
    // Abort once sleep surely runs (the lock is held and bash's child exec'd).
    await waitFor(() => childCommands(sh.pid as number).includes("sleep"), { timeoutMs: 5_000, message: "sleep to start" });
    controller.abort();
    const r: CellResult = await cell.result;
    expect(r.status).toBe("interrupted");
    expect(r.exitCode).toBeNull();
    expect(r.durationMs).toBeLessThan(10_000);
    await waitFor(() => sh.state === "idle", { timeoutMs: 5_000, message: "the prompt after the abort" });
    expect((await sh.run("echo after-abort", { timeoutMs: 5_000 })).output).toBe("after-abort");
  });

  it("an abort that comes right after the cell's first output still stops the command (5 tries)", async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const sh = await spawnBash();
      const controller = new AbortController();
      const cell = sh.fire("echo started; sleep 30", { signal: controller.signal });
      await seen(cell, "started");
      controller.abort();
      expect((await cell.result).status).toBe("interrupted");
      await waitFor(() => sh.state === "idle", { timeoutMs: 5_000, message: "the prompt after the abort" });
      // If the Ctrl-C was lost, `sleep 30` still owns the terminal and this cell is typed into it.
      const next = await sh.run("echo after-abort", { timeoutMs: 3_000 });
      expect({ attempt, status: next.status, output: next.output }).toEqual({ attempt, status: "done", output: "after-abort" });
      await sh.close();
    }
  });

  it("aborting a queued cell rejects it with the reason and it never runs", async () => {
    const sh = await spawnBash();
    const raw = recordRaw(sh);
    const controller = new AbortController();
    const first = sh.fire("sleep 0.3");
    const queued = sh.fire("echo QUEUED_MARKER", { queue: true, signal: controller.signal });
    const reason = new Error("changed my mind");
    controller.abort(reason);
    await expect(queued.result).rejects.toBe(reason);
    await first.result;
    expect((await sh.run("echo done")).output).toBe("done");
    expect(raw.text()).not.toContain("QUEUED_MARKER");
  });
});
