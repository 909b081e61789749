/**
 * The daemon's per-session lock rules (src/cli/daemon/slot.ts), without a
 * terminal or a socket: who may start a cell, what a finished cell leaves,
 * what `k poll` answers and consumes, what an interrupt frees, what km and
 * `k watch` hear.
 */
import { describe, expect, it } from "vitest";
import type { CellResult } from "../../src/index.js";
import { RESULT_CAPACITY, SETTLED_CAPACITY, Slot, type KmEvent } from "../../src/cli/daemon/slot.js";

const A = "aaaa1111";
const B = "bbbb2222";

/** A finished cell's result as the library reports it. */
function result(
  cellId: string,
  status: CellResult["status"],
  extra: { output?: string; exitCode?: number | null; cwd?: string } = {},
): CellResult {
  const base = {
    cellId,
    code: "echo hi",
    output: extra.output ?? "",
    raw: "",
    durationMs: 1,
    truncated: false,
    omittedBytes: 0,
    rawOmittedBytes: 0,
    decidedBy: "prompt",
    startedAt: new Date(0),
    ...(extra.cwd !== undefined ? { cwd: extra.cwd } : {}),
  } as const;
  if (status === "done" || status === "exited") return { ...base, status, exitCode: extra.exitCode ?? null };
  return { ...base, status, exitCode: null };
}

/** A slot whose km events are recorded. */
function slotWithEvents(): { slot: Slot; events: KmEvent[] } {
  const slot = new Slot("s");
  const events: KmEvent[] = [];
  slot.subscribe((event) => events.push(event));
  return { slot, events };
}

describe("who may start a cell", () => {
  it("an idle session takes a cell; the cell holds it until it is over", () => {
    const slot = new Slot("s");
    expect(slot.refusal(false)).toBeNull();
    slot.begin(A, "run");
    expect(slot.refusal(false)).toBe(`active cell '${A}'`);
    expect(slot.state()).toEqual({ state: "running", cell: A });
  });

  it("no agent cell while a person holds the terminal, even on an idle session", () => {
    const slot = new Slot("s");
    expect(slot.refusal(true)).toBe("human attached to 's'; agent cells are refused until they detach (Ctrl-] in k attach)");
  });

  it("a run cell frees the session when it settles; its result is not kept for k poll", () => {
    const slot = new Slot("s");
    slot.begin(A, "run");
    const json = slot.settle("run", result(A, "done", { output: "hi", exitCode: 0 }));
    expect(json).toEqual({ cell_id: A, status: "done", output: "hi", exit_code: 0, cwd: undefined });
    expect(slot.state()).toEqual({ state: "idle" });
    expect(slot.refusal(false)).toBeNull();
    expect(slot.poll(A, false)).toEqual({ json: { cell_id: A, status: "error", output: "unknown cell" }, exit: 1 });
  });

  it("a fired cell that finished lets the next cell start before its result is polled", () => {
    const slot = new Slot("s");
    slot.begin(A, "fire");
    slot.settle("fire", result(A, "done", { output: "x", exitCode: 0 }));
    expect(slot.state()).toEqual({ state: "done", cell: A });
    expect(slot.refusal(false)).toBeNull();
    slot.begin(B, "fire");
    expect(slot.state()).toEqual({ state: "running", cell: B });
    // The first cell's result is still there to read.
    expect(slot.poll(A, false).json).toMatchObject({ cell_id: A, status: "done", output: "x" });
  });

  it("a timed-out cell keeps the session until it is interrupted", () => {
    const slot = new Slot("s");
    slot.begin(A, "run");
    slot.settle("run", result(A, "timeout"));
    expect(slot.state()).toEqual({ state: "timeout", cell: A });
    expect(slot.refusal(false)).toBe(`active cell '${A}'`);
    expect(slot.isRunning(A)).toBe(false);
  });

  it("a result for a cell that no longer holds the lock leaves the lock alone", () => {
    const slot = new Slot("s");
    slot.begin(B, "run");
    slot.settle("run", result(A, "done"));
    expect(slot.state()).toEqual({ state: "running", cell: B });
  });
});

describe("k poll", () => {
  it("reports a running cell, and whether it waits for input", () => {
    const slot = new Slot("s");
    slot.begin(A, "fire");
    expect(slot.poll(A, false)).toEqual({ json: { cell_id: A, status: "running", awaiting_input: undefined }, exit: 0 });
    expect(slot.poll(null, true)).toEqual({ json: { cell_id: A, status: "running", awaiting_input: true }, exit: 0 });
  });

  it("reading a final result consumes it and frees the lock it held", () => {
    const slot = new Slot("s");
    slot.begin(A, "fire");
    slot.settle("fire", result(A, "done", { output: "out", exitCode: 3, cwd: "/tmp" }));
    expect(slot.poll(null, false)).toEqual({ json: { cell_id: A, status: "done", output: "out", exit_code: 3, cwd: "/tmp" }, exit: 0 });
    expect(slot.state()).toEqual({ state: "idle" });
    expect(slot.poll(A, false)).toEqual({ json: { cell_id: A, status: "error", output: "unknown cell" }, exit: 1 });
  });

  it("reading an older cell's result leaves the lock of the running cell", () => {
    const slot = new Slot("s");
    slot.begin(A, "fire");
    slot.settle("fire", result(A, "done"));
    slot.begin(B, "fire");
    expect(slot.poll(A, false).json).toMatchObject({ cell_id: A, status: "done" });
    expect(slot.state()).toEqual({ state: "running", cell: B });
  });

  it("reports a timeout as the result once, then what to do", () => {
    const slot = new Slot("s");
    slot.begin(A, "fire");
    slot.settle("fire", result(A, "timeout"));
    expect(slot.poll(A, false)).toEqual({ json: { cell_id: A, status: "timeout", output: "" }, exit: 0 });
    expect(slot.poll(A, false)).toEqual({ json: { cell_id: A, status: "timeout", output: "use k int or k kill" }, exit: 1 });
    expect(slot.state()).toEqual({ state: "timeout", cell: A });
  });

  it("says so when there is no cell, or the id is not a cell id", () => {
    const slot = new Slot("s");
    expect(slot.poll(null, false)).toEqual({ json: { status: "error", output: "no active cell on 's'" }, exit: 1 });
    expect(slot.poll("../etc", false)).toEqual({ json: { status: "error", output: "invalid cell_id" }, exit: 1 });
    expect(slot.poll(B, false)).toEqual({ json: { cell_id: B, status: "error", output: "unknown cell" }, exit: 1 });
  });

  it("a fired cell whose result was dropped (beyond capacity) frees the lock and says the result is missing", () => {
    const other = new Slot("t");
    other.begin(A, "fire");
    // A result evicted beyond capacity: fire more cells than the slot keeps.
    other.settle("fire", result(A, "done"));
    for (let i = 0; i < RESULT_CAPACITY; i++) other.settle("fire", result(`c0ffee${String(i).padStart(4, "0")}`, "done"));
    expect(other.state()).toEqual({ state: "done", cell: A });
    expect(other.poll(A, false)).toEqual({ json: { cell_id: A, status: "error", output: "result missing" }, exit: 1 });
    expect(other.state()).toEqual({ state: "idle" });
  });

  it("keeps at most RESULT_CAPACITY unread results, dropping the oldest", () => {
    const slot = new Slot("s");
    const ids = Array.from({ length: RESULT_CAPACITY + 5 }, (_, i) => `abc${String(i).padStart(5, "0")}`);
    for (const id of ids) slot.settle("fire", result(id, "done"));
    expect(slot.poll(ids[0] ?? "", false).json).toMatchObject({ status: "error", output: "unknown cell" });
    expect(slot.poll(ids[4] ?? "", false).json).toMatchObject({ status: "error", output: "unknown cell" });
    expect(slot.poll(ids[5] ?? "", false).json).toMatchObject({ status: "done" });
    expect(slot.poll(ids.at(-1) ?? "", false).json).toMatchObject({ status: "done" });
  });
});

describe("interrupts", () => {
  it("end the cell holding the lock as interrupted: the lock is freed, km and watch hear it once", () => {
    const { slot, events } = slotWithEvents();
    slot.begin(A, "fire");
    const lock = slot.lock;
    expect(slot.releaseCompleted()).toBe(false);
    slot.interrupted(lock);
    expect(slot.state()).toEqual({ state: "idle" });
    expect(slot.poll(A, false)).toEqual({ json: { cell_id: A, status: "error", output: "interrupted" }, exit: 0 });
    expect(events.map((e) => e["status"])).toEqual(["fired", "interrupted"]);
    expect(slot.log.tail(10).map((e) => e.kind)).toEqual(["fired", "end"]);
  });

  it("do not report the interrupt twice when the cell's own result said so first", () => {
    const { slot, events } = slotWithEvents();
    slot.begin(A, "run");
    const lock = slot.lock;
    // The library settles the cell "interrupted" (freeing the lock) before the interrupt call returns.
    slot.settle("run", result(A, "interrupted"));
    slot.interrupted(lock);
    expect(events.map((e) => e["status"])).toEqual(["fired", "interrupted"]);
    expect(slot.state()).toEqual({ state: "idle" });
  });

  it("free a timed-out cell's lock", () => {
    const slot = new Slot("s");
    slot.begin(A, "fire");
    slot.settle("fire", result(A, "timeout"));
    const lock = slot.lock;
    slot.interrupted(lock);
    expect(slot.state()).toEqual({ state: "idle" });
    expect(slot.refusal(false)).toBeNull();
  });

  it("a fired cell that already finished has nothing to interrupt: its lock is given back, its result kept", () => {
    const { slot, events } = slotWithEvents();
    slot.begin(A, "fire");
    slot.settle("fire", result(A, "done", { output: "kept" }));
    expect(slot.releaseCompleted()).toBe(true);
    expect(slot.state()).toEqual({ state: "idle" });
    expect(events.map((e) => e["status"])).toEqual(["fired", "done"]);
    expect(slot.poll(A, false).json).toMatchObject({ status: "done", output: "kept" });
  });

  it("with no cell, change nothing", () => {
    const { slot, events } = slotWithEvents();
    slot.interrupted(null);
    expect(slot.state()).toEqual({ state: "idle" });
    expect(events).toEqual([]);
  });
});

describe("cell results as k prints them", () => {
  it("a killed session's cell ends 'killed', an exited program's cell says exited", () => {
    const slot = new Slot("s");
    slot.begin(A, "run");
    expect(slot.settle("run", result(A, "exited", { output: "bye", exitCode: 0 }))).toEqual({
      cell_id: A,
      status: "done",
      output: "bye",
      exit_code: 0,
      exited: true,
    });
    slot.killing = true;
    slot.begin(B, "run");
    expect(slot.settle("run", result(B, "exited", { exitCode: 137 }))).toEqual({ cell_id: B, status: "error", output: "killed" });
  });
});

describe("km events and closing", () => {
  it("a monitor that comes late finds a cell's final status, not 'fired'", () => {
    const slot = new Slot("s");
    slot.begin(A, "fire");
    expect(slot.settledStatus(A)).toBeUndefined();
    slot.settle("fire", result(A, "timeout"));
    expect(slot.settledStatus(A)).toBe("timeout");
  });

  it("keeps at most SETTLED_CAPACITY final statuses", () => {
    const slot = new Slot("s");
    for (let i = 0; i <= SETTLED_CAPACITY; i++) slot.emit({ cell_id: `c${i}`, session: "s", status: "done" });
    expect(slot.settledStatus("c0")).toBeUndefined();
    expect(slot.settledStatus(`c${SETTLED_CAPACITY}`)).toBe("done");
  });

  it("an unsubscribed listener hears nothing more", () => {
    const slot = new Slot("s");
    const heard: KmEvent[] = [];
    const off = slot.subscribe((e) => heard.push(e));
    slot.emit({ session: "s", status: "notify" });
    off();
    slot.emit({ session: "s", status: "notify" });
    expect(heard).toHaveLength(1);
  });

  it("closing tells km 'closed' and every close listener once", () => {
    const { slot, events } = slotWithEvents();
    let closes = 0;
    slot.onClose(() => closes++);
    const off = slot.onClose(() => closes++);
    off();
    expect(slot.close()).toBe(true);
    expect(slot.close()).toBe(false);
    expect(slot.closed).toBe(true);
    expect(closes).toBe(1);
    expect(events).toEqual([{ session: "s", status: "closed" }]);
  });

  it("counts attached clients; the last one to detach is told so", () => {
    const slot = new Slot("s");
    slot.attach();
    slot.attach();
    expect(slot.attached).toBe(2);
    expect(slot.detach()).toBe(false);
    expect(slot.detach()).toBe(true);
    expect(slot.attached).toBe(0);
  });
});
