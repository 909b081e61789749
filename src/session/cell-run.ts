import { Cell, CellState, type CellResult, type CellSnapshot, type CellSource, type DecidedBy, type FinalCellStatus } from "../cell.js";
import type { NestingChange } from "../detect/nested.js";
import type { FrameEnd } from "../detect/types.js";
import { defineRaw, type FrameCollector } from "../frame.js";
import { cellId } from "../internal/cell-id.js";
import { defer, type Deferred } from "../internal/deferred.js";
import type { normalizeCellOptions } from "../options.js";

/** A cell's options once checked and given the session's defaults. */
export type NormalizedCellOptions = ReturnType<typeof normalizeCellOptions>;

/**
 * One cell's record inside the session, from `fire()` to its result: what
 * the cell lifecycle reads and changes as the cell starts, runs and ends,
 * and the callers waiting on it.
 *
 * @internal
 */
export class CellRun extends CellState implements CellSource {
  readonly id = cellId();
  /** The handle, once asked for (see {@link CellRun.cell}). */
  private handle: Cell | undefined;
  startedAt = new Date();
  startTime = performance.now();
  /** The final result, once settled. */
  result: CellResult | undefined;
  /** The latest `awaiting_input` snapshot. */
  inputResult: CellResult | undefined;
  /** The cell's output so far, from its code being written to its frame's end. */
  frame: FrameCollector | undefined;
  /** Set while an interrupt waits for the prompt: the status the cell will settle with. */
  stopping: FinalCellStatus | undefined;
  /** Pending `run()`/`wait()` callers that also return on awaiting_input (made by the first: most cells have none). */
  inputWaiters: Array<Deferred<CellResult>> | undefined;
  /** Callers waiting for the cell to release the lock (a reported timeout keeps it); made by the first. */
  settleWaiters: Array<Deferred<CellResult>> | undefined;
  /** Stops watching the cell's abort signal. */
  unlisten: (() => void) | undefined;
  /** What the input checks ask of the cell, once its code was written (see {@link CellRun.running}). */
  checks: RunChecks | undefined;

  /** A new cell, `queued` behind the lock holder or `running`. */
  constructor(
    readonly code: string,
    readonly options: NormalizedCellOptions,
    queued: boolean,
  ) {
    super(queued ? "queued" : "running");
  }

  /**
   * The handle the caller holds; its output is the frame so far, then the result's. Made when first
   * asked for: `run()` hands out the cell's promise only (most cells).
   */
  get cell(): Cell {
    return (this.handle ??= new Cell(this.id, this.code, this, this));
  }

  /** What the cell's handle shows before it settles: the frame so far, then the result's output. */
  outputSoFar(): string {
    return this.result?.output ?? this.frame?.peek() ?? "";
  }

  /** Whether the cell still holds the lock and runs undisturbed (what the input checks look at; see `InputCheckedCell`). */
  running(): boolean {
    return this.checks?.running(this) === true;
  }

  /** The program waits for input: the cell settles `awaiting_input` (see `InputCheckedCell`). */
  awaitingInput(): void {
    this.checks?.awaitingInput(this);
  }

  /** Resolves everyone waiting for the cell to release the lock. */
  wake(result: CellResult): void {
    const waiters = this.settleWaiters;
    if (waiters === undefined || waiters.length === 0) return;
    this.settleWaiters = undefined;
    for (const waiter of waiters) waiter.resolve(result);
  }

  /** Resolves the callers waiting for the cell's next settle point, `awaiting_input` included. */
  resolveInputWaiters(result: CellResult): void {
    const waiters = this.inputWaiters;
    if (waiters === undefined) return;
    this.inputWaiters = undefined;
    for (const waiter of waiters) waiter.resolve(result);
  }

  /** Settles when the cell releases the lock (never rejects). */
  whenReleased(): Promise<void> {
    const released = defer<CellResult>();
    (this.settleWaiters ??= []).push(released);
    return released.promise.then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * The cell's next settle point: its result (for a cell that reported a timeout and still holds
   * the lock, `holdsLock`, the result once its frame ends), or with `untilInput` its
   * `awaiting_input` snapshot if that comes first.
   */
  nextSettlePoint(holdsLock: boolean, untilInput: boolean): Promise<CellResult> {
    const waiter = defer<CellResult>();
    if (this.result !== undefined) {
      if (!holdsLock) return Promise.resolve(this.result);
      (this.settleWaiters ??= []).push(waiter);
      return waiter.promise;
    }
    if (untilInput && this.status === "awaiting_input" && this.inputResult !== undefined) return Promise.resolve(this.inputResult);
    if (untilInput) (this.inputWaiters ??= []).push(waiter);
    this.promise.then(
      (result) => waiter.resolve(result),
      (error: unknown) => waiter.reject(error),
    );
    return waiter.promise;
  }

  /**
   * What `poll()` shows of the cell: its status, and its output and exit code once it has a result
   * (its `awaiting_input` snapshot while it waits for input).
   */
  snapshot(): CellSnapshot {
    const result = this.result ?? (this.status === "awaiting_input" ? this.inputResult : undefined);
    if (result === undefined) return { cellId: this.id, status: this.status };
    return { cellId: this.id, status: this.status, output: result.output, exitCode: result.exitCode };
  }
}

/** What `poll()` shows of a settled cell that no longer holds the lock: its result's (as {@link CellRun.snapshot}). */
export function settledSnapshot(result: CellResult): CellSnapshot {
  return { cellId: result.cellId, status: result.status, output: result.output, exitCode: result.exitCode };
}

/** How the input checks' questions about a cell are answered: one object per session, not per cell. */
export interface RunChecks {
  running(run: CellRun): boolean;
  awaitingInput(run: CellRun): void;
}

/** How a cell ended, beyond its status: what its detector (or the lifecycle) said. */
export interface SettleDetails {
  readonly exitCode: number | null;
  readonly cwd?: string | undefined;
  readonly nested?: NestingChange | undefined;
  /** Lines at the frame's end that are not the cell's output (the prompt's). */
  readonly dropLines?: number | undefined;
  /** Text at the end of what is left that is not the cell's output either (a prompt on its last line). */
  readonly dropSuffix?: string | undefined;
  readonly decidedBy: DecidedBy;
}

/**
 * The result of `run` as it ends with `status`: the output its frame holds (finished here), and with
 * `awaiting_input` the unfinished line (`partialLine()`, usually the question) shown after it; its
 * time runs to `now` (`performance.now()`: the time the frame ended, when the caller knows it).
 * `details` may be the detector's {@link FrameEnd} as it is (its exit code then counts for `done`
 * and `exited`), with `decidedBy` given apart.
 *
 * @internal
 */
export function cellResult(
  run: CellRun,
  status: FinalCellStatus | "awaiting_input",
  frame: FrameCollector | undefined,
  details: SettleDetails | FrameEnd,
  partialLine: () => string,
  now = performance.now(),
  decidedBy: DecidedBy = (details as SettleDetails).decidedBy,
): CellResult {
  const finished = frame?.finish(details.dropLines, details.dropSuffix);
  let output = finished?.output ?? "";
  if (status === "awaiting_input") output = withPartialLine(output, frame, partialLine);
  // One object literal, built once: this runs for every cell.
  const result = {
    cellId: run.id,
    code: run.code,
    status,
    output,
    raw: "",
    exitCode: status === "done" || status === "exited" ? (details.exitCode ?? null) : null,
    durationMs: Math.round((now - run.startTime) * 1000) / 1000,
    truncated: finished?.truncated ?? false,
    omittedBytes: finished?.omittedBytes ?? 0,
    rawOmittedBytes: finished?.rawOmittedBytes ?? 0,
    decidedBy,
    startedAt: run.startedAt,
  } as CellResult;
  if (finished !== undefined) {
    // A short output's raw text is a string (most cells): set as it is.
    if (typeof finished.raw === "string") (result as { raw: string }).raw = finished.raw;
    else defineRaw(result as { raw: string }, finished.raw);
  }
  if (details.cwd !== undefined) (result as { cwd?: string }).cwd = details.cwd;
  if (details.nested !== undefined) (result as { nested?: NestingChange }).nested = details.nested;
  return result;
}

/** An `awaiting_input` cell's output: with its unfinished line (usually the question) after it. */
function withPartialLine(output: string, frame: FrameCollector | undefined, partialLine: () => string): string {
  const partial = frame?.collecting === true ? partialLine() : "";
  return output === "" || partial === "" ? output + partial : `${output}\n${partial}`;
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
