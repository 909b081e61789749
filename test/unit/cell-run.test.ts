import { describe, expect, it } from "vitest";
import { FrameCollector } from "../../src/frame.js";
import { normalizeCellOptions } from "../../src/options.js";
import { CellRun, cellResult, releasedResult } from "../../src/session/cell-run.js";

// One cell's record, result and waiters, without a session or a PTY: the
// frame is filled by hand as the output pipeline would fill it. How real
// cells end is proven on real PTYs (test/session/cells.test.ts and beyond).

function newRun(code = "echo hi", queued = false): CellRun {
  return new CellRun(code, normalizeCellOptions(undefined, 10_000), queued);
}

function frameWith(...chunks: string[]): FrameCollector {
  const frame = new FrameCollector(1 << 20);
  for (const chunk of chunks) frame.add(chunk);
  return frame;
}

const noPartial = () => "";

describe("CellRun: a new cell", () => {
  it("starts running (or queued) with its handle showing the same id, code and status", () => {
    const running = newRun("ls");
    expect(running.status).toBe("running");
    expect(running.cell).toMatchObject({ id: running.id, code: "ls", status: "running" });
    const queued = newRun("ls", true);
    expect(queued.cell.status).toBe("queued");
    expect(queued.id).not.toBe(running.id);
  });

  it("its handle's output starts with the frame so far, and once settled is the result's", async () => {
    const run = newRun();
    run.frame = frameWith("so far\n");
    const live = run.cell[Symbol.asyncIterator]();
    expect((await live.next()).value).toBe("so far");
    const result = cellResult(run, "done", frameWith("final\n"), { exitCode: 0, decidedBy: "prompt" }, noPartial);
    run.result = result;
    run.finish(result);
    const after = run.cell[Symbol.asyncIterator]();
    expect(await after.next()).toEqual({ done: false, value: "final" });
    expect((await after.next()).done).toBe(true);
  });

  it("setStatus() tells its handle", () => {
    const run = newRun("cat", true);
    run.setStatus("awaiting_input");
    expect(run.status).toBe("awaiting_input");
    expect(run.cell.status).toBe("awaiting_input");
  });
});

describe("cellResult: what a cell's result holds", () => {
  it("a done cell: the frame's output without the prompt's lines, its exit code, cwd, who decided", () => {
    const run = newRun("cd /tmp");
    const r = cellResult(
      run,
      "done",
      frameWith("a\n", "b\n", "prompt$\n"),
      { exitCode: 2, cwd: "/tmp", dropLines: 1, decidedBy: "shell-integration" },
      noPartial,
    );
    expect(r).toMatchObject({ cellId: run.id, code: "cd /tmp", status: "done", output: "a\nb", exitCode: 2, cwd: "/tmp" });
    expect(r).toMatchObject({ decidedBy: "shell-integration", truncated: false, omittedBytes: 0, startedAt: run.startedAt });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect("nested" in r).toBe(false);
  });

  it("a prompt drawn on the output's last line (output without a final newline) is cut, only where the output ends with it", () => {
    const run = newRun("printf hi");
    const details = { exitCode: null, dropLines: 1, dropSuffix: "$ ", decidedBy: "repeat-enter" } as const;
    expect(cellResult(run, "done", frameWith("hi$ \n", "$ \n"), details, noPartial).output).toBe("hi");
    expect(cellResult(run, "done", frameWith("hi#\n", "$ \n"), details, noPartial).output).toBe("hi#");
    // A long output is held in pieces: the prompt may straddle two of them.
    const long = new FrameCollector(4 << 20);
    long.add(`${"x".repeat(1 << 20)}\nhi$`);
    long.flush();
    long.add(" \n$ \n");
    expect(cellResult(run, "done", long, details, noPartial).output).toBe(`${"x".repeat(1 << 20)}\nhi`);
  });

  it("an exit code only for done and exited: an interrupted or timed-out cell has none", () => {
    const run = newRun();
    for (const status of ["interrupted", "timeout"] as const) {
      expect(cellResult(run, status, frameWith("x\n"), { exitCode: 130, decidedBy: "interrupt" }, noPartial).exitCode).toBeNull();
    }
    expect(cellResult(run, "exited", undefined, { exitCode: 1, decidedBy: "exit" }, noPartial)).toMatchObject({ exitCode: 1, output: "" });
  });

  it("awaiting input: the unfinished line (the question) after the output, only while the frame collects", () => {
    const run = newRun("python3 ask.py");
    const question = () => "Name? ";
    expect(cellResult(run, "awaiting_input", frameWith("hello\n"), { exitCode: null, decidedBy: "input" }, question).output).toBe(
      "hello\nName? ",
    );
    expect(cellResult(run, "awaiting_input", frameWith(), { exitCode: null, decidedBy: "input" }, question).output).toBe("Name? ");
    const done = frameWith("hello\n");
    done.collecting = false;
    expect(cellResult(run, "awaiting_input", done, { exitCode: null, decidedBy: "input" }, question).output).toBe("hello");
  });

  it("a cell cut before its code was written (no frame) has empty output", () => {
    const r = cellResult(newRun(), "interrupted", undefined, { exitCode: null, decidedBy: "detector-error" }, noPartial);
    expect(r).toMatchObject({ status: "interrupted", output: "", raw: "", truncated: false });
  });
});

describe("releasedResult: a cell released without its prompt after it had reported", () => {
  it("reports the release as an interrupt, the note after the output it had", () => {
    const run = newRun("psql");
    const timedOut = cellResult(run, "timeout", frameWith("BEGIN\n"), { exitCode: null, decidedBy: "timeout" }, noPartial);
    const r = releasedResult(timedOut, "[released]");
    expect(r).toMatchObject({ cellId: run.id, status: "interrupted", exitCode: null, decidedBy: "interrupt", output: "BEGIN\n[released]" });
    expect(timedOut.status).toBe("timeout");
    const silent = cellResult(run, "timeout", undefined, { exitCode: null, decidedBy: "timeout" }, noPartial);
    expect(releasedResult(silent, "[released]").output).toBe("[released]");
  });
});

describe("CellRun: waiting on a cell and polling it", () => {
  it("nextSettlePoint() resolves with the result once its handle settles", async () => {
    const run = newRun();
    const next = run.nextSettlePoint(true, false);
    const result = cellResult(run, "done", frameWith("hi\n"), { exitCode: 0, decidedBy: "prompt" }, noPartial);
    run.result = result;
    run.finish(result);
    expect(await next).toBe(result);
  });

  it("with untilInput, resolves with the awaiting_input snapshot it already has", async () => {
    const run = newRun("cat");
    const snapshot = cellResult(run, "awaiting_input", frameWith(), { exitCode: null, decidedBy: "input" }, () => "> ");
    run.inputResult = snapshot;
    run.setStatus("awaiting_input");
    expect(await run.nextSettlePoint(true, true)).toBe(snapshot);
  });

  it("a cell that reported a timeout and still holds the lock: the next settle point is its wake(), not the old result", async () => {
    const run = newRun("sleep 100");
    const timedOut = cellResult(run, "timeout", frameWith(), { exitCode: null, decidedBy: "timeout" }, noPartial);
    run.result = timedOut;
    expect(await run.nextSettlePoint(false, false)).toBe(timedOut);
    let woken = false;
    const next = run.nextSettlePoint(true, false).then((r) => {
      woken = true;
      return r;
    });
    const released = run.whenReleased();
    await Promise.resolve();
    expect(woken).toBe(false);
    run.wake(timedOut);
    expect(await next).toBe(timedOut);
    await expect(released).resolves.toBeUndefined();
  });

  it("snapshot(): the status alone while running, output and exit code once settled, the question while awaiting input", () => {
    const run = newRun("read x");
    expect(run.snapshot()).toEqual({ cellId: run.id, status: "running" });
    run.inputResult = cellResult(run, "awaiting_input", frameWith(), { exitCode: null, decidedBy: "input" }, () => "x? ");
    run.setStatus("awaiting_input");
    expect(run.snapshot()).toEqual({ cellId: run.id, status: "awaiting_input", output: "x? ", exitCode: null });
    run.result = cellResult(run, "done", frameWith("ok\n"), { exitCode: 0, decidedBy: "prompt" }, noPartial);
    run.status = "done";
    expect(run.snapshot()).toEqual({ cellId: run.id, status: "done", output: "ok", exitCode: 0 });
  });
});
