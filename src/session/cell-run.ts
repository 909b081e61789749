import {
  Cell,
  type CellControl,
  type CellResult,
  type CellSnapshot,
  type CellStatus,
  type DecidedBy,
  type FinalCellStatus,
} from "../cell.js";
import type { NestingChange } from "../detect/nested.js";
import { defineRaw, type FrameCollector } from "../frame.js";
import { cellId } from "../internal/cell-id.js";
import { defer, type Deferred } from "../internal/deferred.js";
import type { LongTimeout } from "../internal/long-timeout.js";
import type { normalizeCellOptions } from "../options.js";

/** A cell's options once checked and given the session's defaults. */
export type NormalizedCellOptions = ReturnType<typeof normalizeCellOptions>;

/**
 * One cell's record inside the session, from `fire()` to its result: what
 * the cell lifecycle reads and changes as the cell starts, runs and ends.
 *
 * @internal
 */
export interface CellRun {
  readonly id: string;
  readonly code: string;
  readonly options: NormalizedCellOptions;
  /** The handle the caller holds. */
  readonly cell: Cell;
  /** What settles the handle and feeds its live consumers. */
  readonly control: CellControl;
  startedAt: Date;
  startTime: number;
  status: CellStatus;
  /** The final result, once settled. */
  result: CellResult | undefined;
  /** The latest `awaiting_input` snapshot. */
  inputResult: CellResult | undefined;
  /** The cell's output so far, from its code being written to its frame's end. */
  frame: FrameCollector | undefined;
  timer: LongTimeout | undefined;
  /** Set while an interrupt waits for the prompt: the status the cell will settle with. */
  stopping: FinalCellStatus | undefined;
  /** Pending `run()`/`wait()` callers that also return on awaiting_input. */
  inputWaiters: Array<Deferred<CellResult>>;
  /** Callers waiting for the cell to release the lock (a reported timeout keeps it). */
  settleWaiters: Array<Deferred<CellResult>>;
  /** Stops watching the cell's abort signal. */
  unlisten: (() => void) | undefined;
}

/** How a cell ended, beyond its status: what its detector (or the lifecycle) said. */
export interface SettleDetails {
  readonly exitCode: number | null;
  readonly cwd?: string | undefined;
  readonly nested?: NestingChange | undefined;
  /** Lines at the frame's end that are not the cell's output (the prompt's). */
  readonly dropLines?: number | undefined;
  readonly decidedBy: DecidedBy;
}

/**
 * A new cell's record, `queued` behind the lock holder or `running`; its handle's output is the
 * frame so far, then the result's.
 *
 * @internal
 */
export function createCellRun(code: string, options: NormalizedCellOptions, queued: boolean): CellRun {
  const id = cellId();
  let control!: CellControl;
  const status = queued ? "queued" : "running";
  const run: CellRun = {
    id,
    code,
    options,
    cell: new Cell(
      id,
      code,
      status,
      () => run.result?.output ?? run.frame?.peek() ?? "",
      (given) => {
        control = given;
      },
    ),
    control: undefined as unknown as CellControl,
    startedAt: new Date(),
    startTime: performance.now(),
    status,
    result: undefined,
    inputResult: undefined,
    frame: undefined,
    timer: undefined,
    stopping: undefined,
    inputWaiters: [],
    settleWaiters: [],
    unlisten: undefined,
  };
  (run as { control: CellControl }).control = control;
  return run;
}

/**
 * The result of `run` as it ends with `status`: the output its frame holds (finished here), and with
 * `awaiting_input` the unfinished line (`partialLine()`, usually the question) shown after it.
 *
 * @internal
 */
export function cellResult(
  run: CellRun,
  status: FinalCellStatus | "awaiting_input",
  frame: FrameCollector | undefined,
  details: SettleDetails,
  partialLine: () => string,
): CellResult {
  const finished = frame?.finish(details.dropLines);
  let output = finished?.output ?? "";
  if (status === "awaiting_input") {
    const partial = frame?.collecting === true ? partialLine() : "";
    output = output === "" || partial === "" ? output + partial : `${output}\n${partial}`;
  }
  // One object literal, built once: this runs for every cell.
  const result = {
    cellId: run.id,
    code: run.code,
    status,
    output,
    raw: "",
    exitCode: status === "done" || status === "exited" ? details.exitCode : null,
    durationMs: Math.round((performance.now() - run.startTime) * 1000) / 1000,
    truncated: finished?.truncated ?? false,
    omittedBytes: finished?.omittedBytes ?? 0,
    rawOmittedBytes: finished?.rawOmittedBytes ?? 0,
    decidedBy: details.decidedBy,
    startedAt: run.startedAt,
  } as CellResult;
  if (finished !== undefined) defineRaw(result as { raw: string }, finished.raw);
  if (details.cwd !== undefined) (result as { cwd?: string }).cwd = details.cwd;
  if (details.nested !== undefined) (result as { nested?: NestingChange }).nested = details.nested;
  return result;
}

/**
 * A cell that reported a result earlier (a timeout that kept the lock) and was then released
 * without its prompt: that release is reported as an interrupt, `note` (why) after its output.
 *
 * @internal
 */
export function releasedResult(earlier: CellResult, note: string): CellResult {
  return {
    ...earlier,
    status: "interrupted",
    exitCode: null,
    decidedBy: "interrupt",
    output: earlier.output === "" ? note : `${earlier.output}\n${note}`,
  } as CellResult;
}

/**
 * What `poll()` shows of a cell: its status, and its output and exit code once it has a result
 * (its `awaiting_input` snapshot while it waits for input).
 *
 * @internal
 */
export function cellSnapshot(run: CellRun): CellSnapshot {
  const result = run.result ?? (run.status === "awaiting_input" ? run.inputResult : undefined);
  if (result === undefined) return { cellId: run.id, status: run.status };
  return { cellId: run.id, status: run.status, output: result.output, exitCode: result.exitCode };
}

/** Sets the cell's status and tells its handle. */
export function setStatus(run: CellRun, status: CellStatus): void {
  run.status = status;
  run.control.setStatus(status);
}

/** Resolves everyone waiting for the cell to release the lock. */
export function wake(run: CellRun, result: CellResult): void {
  for (const waiter of run.settleWaiters.splice(0)) waiter.resolve(result);
}

/**
 * Settles when the cell releases the lock (never rejects).
 *
 * @internal
 */
export function whenReleased(run: CellRun): Promise<void> {
  const released = defer<CellResult>();
  run.settleWaiters.push(released);
  return released.promise.then(
    () => undefined,
    () => undefined,
  );
}

/**
 * The cell's next settle point: its result (for a cell that reported a timeout while it still holds
 * the lock, `holdsLock`, the result once its frame ends), or with `untilInput` its `awaiting_input`
 * snapshot if that comes first.
 *
 * @internal
 */
export function nextSettlePoint(run: CellRun, holdsLock: boolean, untilInput: boolean): Promise<CellResult> {
  const waiter = defer<CellResult>();
  if (run.result !== undefined) {
    if (!holdsLock) return Promise.resolve(run.result);
    run.settleWaiters.push(waiter);
    return waiter.promise;
  }
  if (untilInput && run.status === "awaiting_input" && run.inputResult !== undefined) return Promise.resolve(run.inputResult);
  if (untilInput) run.inputWaiters.push(waiter);
  run.cell.result.then(
    (result) => waiter.resolve(result),
    (error: unknown) => waiter.reject(error),
  );
  return waiter.promise;
}
