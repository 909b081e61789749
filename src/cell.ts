import type { NestingChange } from "./detect/nested.js";
import { BoundedQueue } from "./internal/bounded-queue.js";

/**
 * Where a cell stands. `"done"`, `"timeout"`, `"interrupted"` and
 * `"exited"` are final; `"queued"`, `"running"` and `"awaiting_input"` are not.
 */
export type CellStatus = "queued" | "running" | "awaiting_input" | "done" | "timeout" | "interrupted" | "exited";

/** The statuses after which a cell never changes. */
export type FinalCellStatus = "done" | "timeout" | "interrupted" | "exited";

/** Fields every {@link CellResult} has. */
/**
 * What ended a cell's frame: a built-in detector (`"shell-integration"`,
 * `"prompt"`, `"repeat-enter"`, `"hook"`, `"idle"`, `"external"`), the
 * session itself (`"exit"`: the program ended; `"timeout"`; `"interrupt"`:
 * `interrupt()` or an abort; `"input"`: the program waits for input, with
 * `untilInput`; `"detector-error"`: the detector threw while encoding the
 * cell), or the `name` of a detector you wrote.
 */
export type DecidedBy =
  | "shell-integration"
  | "prompt"
  | "repeat-enter"
  | "hook"
  | "idle"
  | "external"
  | "exit"
  | "timeout"
  | "interrupt"
  | "input"
  | "detector-error"
  | (string & {});

export interface CellResultBase {
  /** The cell's id (also `cell.id`). */
  readonly cellId: string;
  /** The code the cell ran. */
  readonly code: string;
  /**
   * The cell's output only: no echoed input, no prompt, no escape
   * sequences, `\n` line endings, carriage-return redraws collapsed. Cut to
   * `maxOutputBytes` (head and tail kept) when `truncated`.
   */
  readonly output: string;
  /** The terminal's bytes during the cell, as produced (also capped). */
  readonly raw: string;
  /** Milliseconds from writing the cell to this result (to the arrival of the output that ended its frame, when that ended it). */
  readonly durationMs: number;
  /** True when `output` was cut to `maxOutputBytes`. */
  readonly truncated: boolean;
  /** Bytes left out of the middle of `output` (0 unless `truncated`). */
  readonly omittedBytes: number;
  /** Bytes left out of the middle of `raw`. */
  readonly rawOmittedBytes: number;
  /** What ended the frame: a detector's name, `"exit"`, `"timeout"`, `"interrupt"`, `"input"` or `"detector-error"`. */
  readonly decidedBy: DecidedBy;
  /** The shell's working directory after the cell (shell integration). */
  readonly cwd?: string;
  /**
   * Set when the cell entered a nested program (a sub-shell, ssh, su, a REPL it started, which now
   * waits at its prompt and gets the next cells: `entered`) or left one (it ended during the cell:
   * `left`, with the reason, such as `"connection_lost"`). `stack` is every nested program now running.
   */
  readonly nested?: NestingChange;
  /** When the cell was written to the terminal. */
  readonly startedAt: Date;
}

/** The frame ended: the program is waiting for the next cell. */
export interface DoneCellResult extends CellResultBase {
  readonly status: "done";
  /** The command's exit status where the detector knows it (shell integration), else `null`. */
  readonly exitCode: number | null;
}

/** The program is blocked reading the terminal; the cell still holds the lock. */
export interface AwaitingInputCellResult extends CellResultBase {
  readonly status: "awaiting_input";
  readonly exitCode: null;
}

/** The cell ran out of time (it may still be running) or was interrupted. */
export interface StoppedCellResult extends CellResultBase {
  readonly status: "timeout" | "interrupted";
  readonly exitCode: null;
}

/** The program exited during the cell. */
export interface ExitedCellResult extends CellResultBase {
  readonly status: "exited";
  /** The program's exit status (`null` if killed by a signal). */
  readonly exitCode: number | null;
}

/** The outcome of a cell: a discriminated union on `status`. */
export type CellResult = DoneCellResult | AwaitingInputCellResult | StoppedCellResult | ExitedCellResult;

/** What `poll()` reports: cheap, synchronous. */
export interface CellSnapshot {
  readonly cellId: string;
  readonly status: CellStatus;
  /** The output, once the cell settled or while it awaits input. */
  readonly output?: string;
  /** The exit status, once known. */
  readonly exitCode?: number | null;
}

/** The session's side of a {@link Cell}. */
export interface CellControl {
  setStatus(status: CellStatus): void;
  /** A piece of the cell's clean output, for live consumers. */
  push(chunk: string): void;
  /** Settles the cell with a final result. */
  finish(result: CellResult): void;
  /** The cell could not start. */
  fail(error: unknown): void;
}

/** Marks a rejection handled. */
const ignore = (): void => {};

/** Bytes a live consumer of a cell may fall behind before output is dropped (and said so). */
const LIVE_BUFFER_BYTES = 4 << 20;

/** What a {@link Cell} shows of its cell's output before it settles (the session's record of the cell). @internal */
export interface CellSource {
  /** The cell's clean output so far (its result's, once settled). */
  outputSoFar(): string;
}

/** What {@link captureSettlers} took from the promise made last (read at once by its maker). */
let capturedResolve: ((result: never) => void) | undefined;
let capturedReject: ((error: unknown) => void) | undefined;
/** A promise executor that hands its settle functions over through the two variables above. */
function captureSettlers(resolve: (result: never) => void, reject: (error: unknown) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

/**
 * A {@link Cell}'s state, and the session's side of it ({@link CellControl}): its methods on the
 * prototype (a cell is made for every `run()`: no closures per cell). The session's record of a
 * cell extends it (one object per cell, not two); members TypeScript-`private`, not `#private`
 * (a `#` member is reached through a keyed lookup, on every cell's path).
 *
 * @internal
 */
export class CellState implements CellControl {
  status: CellStatus;
  ended = false;
  /** Live consumers (iterators); made by the first one (most cells have none). */
  consumers: Set<BoundedQueue<string>> | undefined;
  readonly promise: Promise<CellResult>;
  private resolvePromise!: (result: CellResult) => void;
  private rejectPromise!: (error: unknown) => void;

  constructor(status: CellStatus) {
    this.status = status;
    // One executor for every cell, not a closure (and its context) made per cell.
    this.promise = new Promise<CellResult>(captureSettlers);
    this.resolvePromise = capturedResolve as (result: CellResult) => void;
    this.rejectPromise = capturedReject as (error: unknown) => void;
    capturedResolve = capturedReject = undefined;
  }

  setStatus(next: CellStatus): void {
    this.status = next;
  }

  push(chunk: string): void {
    if (this.consumers !== undefined) for (const consumer of this.consumers) consumer.push(chunk);
  }

  finish(result: CellResult): void {
    this.status = result.status;
    this.ended = true;
    if (this.consumers !== undefined) for (const consumer of this.consumers) consumer.end();
    this.resolvePromise(result);
  }

  fail(error: unknown): void {
    this.ended = true;
    if (this.consumers !== undefined) for (const consumer of this.consumers) consumer.end();
    // A caller that never awaits `result` must not crash the process on the rejection.
    this.promise.catch(ignore);
    this.rejectPromise(error);
  }
}

/**
 * A handle on one cell, returned by `fire()` at once. Iterate it for the
 * cell's clean output as it arrives; await `result` for the outcome.
 *
 * @example
 * ```ts
 * const cell = sh.fire("make build");
 * for await (const chunk of cell) process.stdout.write(chunk);
 * const { status, exitCode } = await cell.result;
 * ```
 */
export class Cell implements AsyncIterable<string> {
  /** The cell's id, known at once. */
  readonly id: string;
  /** The code the cell runs. */
  readonly code: string;
  /** Settles with a final status; rejects only if the cell never started (the session closed first). */
  readonly result: Promise<CellResult>;
  readonly #state: CellState;
  readonly #source: CellSource;

  /** @internal Use `Session.fire()`. */
  constructor(id: string, code: string, state: CellState, source: CellSource) {
    this.id = id;
    this.code = code;
    this.#state = state;
    this.#source = source;
    this.result = state.promise;
  }

  /** `"queued"` or `"running"` (or `"awaiting_input"`) until settled, then the final status. */
  get status(): CellStatus {
    return this.#state.status;
  }

  /** The cell's clean output: what it printed so far, then live until it settles. */
  [Symbol.asyncIterator](): AsyncIterator<string> {
    const state = this.#state;
    const queue = new BoundedQueue<string>({
      maxUnits: LIVE_BUFFER_BYTES,
      sizeOf: (chunk) => chunk.length,
      droppedItem: (dropped) => `[agent-tty: dropped ${dropped} bytes]\n`,
      onDone: () => state.consumers?.delete(queue),
    });
    const sofar = this.#source.outputSoFar();
    if (sofar !== "") queue.push(sofar);
    if (state.ended) queue.end();
    else (state.consumers ??= new Set()).add(queue);
    return queue;
  }
}
