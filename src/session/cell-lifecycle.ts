import type { CellControl, CellResult, CellSnapshot, CellStatus, Cell, DecidedBy, FinalCellStatus } from "../cell.js";
import type { FrameDetector, FrameEnd } from "../detect/types.js";
import { AgentTtyError, HumanControlError, SessionBusyError, SessionClosedError } from "../errors.js";
import type { SessionEventFields } from "../events.js";
import { FrameCollector } from "../frame.js";
import { ReusableTimeout } from "../internal/reusable-timeout.js";
import { normalizeCellOptions, normalizeCode, type CellOptions } from "../options.js";
import {
  CellRun,
  cellResult,
  releasedResult,
  settledSnapshot,
  type NormalizedCellOptions,
  type RunChecks,
  type SettleDetails,
} from "./cell-run.js";
import { InputChecks, type InputChecksHost } from "./input-checks.js";
import { Interrupter, type InterruptHost } from "./interrupt.js";
import type { OutputPipeline } from "./output-pipeline.js";

/** How a cell settles when the program waits for input. */
const AWAITING_INPUT: SettleDetails = Object.freeze({ exitCode: null, decidedBy: "input" });

/** How many settled cells `poll(id)` remembers. */
export const RETAINED_CELLS = 100;

/** Where the lock stands: free, held by a running cell, or held by a cell that reported `timeout` (its command may still run). */
export type LockState = "idle" | "busy" | "timed_out";

/** The cell holding the lock, as the session shows it. */
export interface LockHolder {
  readonly id: string;
  readonly code: string;
  readonly startedAt: Date;
  readonly status: CellStatus;
}

/** What the session's settings say about every cell. */
export interface CellLifecycleOptions {
  /** The session's name, for errors. */
  readonly name: string;
  /** A cell's timeout when it gives none. */
  readonly timeoutMs: number;
  /** The cap of one cell's output (its frame). */
  readonly maxOutputBytes: number;
}

/** The part of the output pipeline a cell's life drives (see {@link OutputPipeline}). */
export type CellOutput = Pick<
  OutputPipeline,
  "startCell" | "endCell" | "closeFrame" | "flushPartial" | "partialLine" | "lastOutputAt" | "chunkTime"
>;

/**
 * What the cell lifecycle asks of the session it serves: the terminal, the program, events (and what
 * its interrupts and input checks ask, see {@link InterruptHost} and {@link InputChecksHost}).
 */
export interface CellLifecycleHost extends InterruptHost, InputChecksHost {
  /** Throws when no cell may start (the session is closed or the program exited). */
  assertOpen(): void;
  /** Whether a person holds the terminal (cells are refused). */
  heldByHuman(): boolean;
  /** Emits a session event (`fired`, `done`). */
  emit(fields: SessionEventFields): void;
  /** Whether anyone hears the cells' events (a recording, a listener, a stream): when false they are not built. Default: true. */
  cellEventsHeard?(): boolean;
  /** A detector's method threw. */
  detectorFailed(error: unknown): void;
}

/**
 * A session's cells from start to end: the lock and the queue behind it,
 * writing a cell when the program is at its prompt, timeouts, abort signals,
 * interrupts (sending Ctrl-C is {@link Interrupter}'s job; what a cell that
 * gets no prompt back becomes is decided here), the `awaiting_input` settle
 * point (when is {@link InputChecks}' job), settling a result (built by
 * {@link cellResult}) and the last {@link RETAINED_CELLS} results kept for
 * `poll(id)`.
 *
 * How a cell ends, in one place: its frame ends (the detector saw the
 * prompt: {@link CellLifecycle.frameEnded}, `done`), it times out
 * (`timeout`, the lock kept until its prompt comes), it is interrupted or
 * aborted (`interrupted`), or the program exits ({@link CellLifecycle.programExited},
 * `exited`). It never reads the terminal: the output pipeline fills the
 * frame this gives it (see {@link CellLifecycle.frame}).
 *
 * Its members are TypeScript-`private`, not `#private`: V8 reaches a `#` member through a keyed
 * lookup (a brand check for a method), some 40 instructions more an access, on every cell's path.
 *
 * @internal
 */
export class CellLifecycle {
  private readonly options: CellLifecycleOptions;
  private readonly detector: FrameDetector;
  private readonly output: CellOutput;
  private readonly host: CellLifecycleHost;
  private lockState: LockState = "idle";
  private lock: CellRun | undefined;
  private readonly queue: CellRun[] = [];
  /**
   * The results of the last {@link RETAINED_CELLS} settled cells, a ring (oldest overwritten): looked
   * up only by `poll(id)`, so a scan; a Map evicting its oldest key cost more per cell than the whole
   * lookup. Results, not the cells' records: a record (its handle, its promise) is let go of young.
   */
  private readonly settled: CellResult[] = [];
  /** Where the next settled cell goes once the ring is full (the oldest). */
  private settledNext = 0;
  private lastResult: CellResult | undefined;
  /** False after input that submits something (Enter, Ctrl-C) was typed outside a cell, until the next prompt. */
  private atPrompt = true;
  /** A cell waiting for the prompt (or for an interrupt to be taken in) before it is written. */
  private held: CellRun | undefined;
  private readonly interrupts: Interrupter;
  /** The options of a cell given none (most cells), made once. */
  private readonly defaultCellOptions: NormalizedCellOptions;
  private readonly inputs: InputChecks;
  /** The lock holder's deadline, one timer from cell to cell (see {@link ReusableTimeout}). */
  private readonly deadline = new ReusableTimeout();
  /** The cell the deadline was last armed for (only the lock holder has one). */
  private deadlineRun: CellRun | undefined;
  // Made once, not per cell: the deadline's callback, and what runs once an interrupt is taken in.
  private readonly onDeadline = (): void => {
    const run = this.deadlineRun;
    this.deadlineRun = undefined;
    if (run !== undefined) this.onTimeout(run);
  };
  /** The unfinished line, for an `awaiting_input` result (made once, not per settle). */
  private readonly partialLine = (): string => this.output.partialLine;
  /** What the input checks ask of the cell they look at (see {@link CellRun.running}). */
  private readonly runChecks: RunChecks = {
    running: (run) => this.lock === run && run.status === "running" && run.stopping === undefined && run.result === undefined,
    awaitingInput: (run) => {
      this.settle(run, "awaiting_input", run.frame, AWAITING_INPUT);
    },
  };
  private readonly afterInterruptSettled = (): void => {
    const held = this.held;
    if (held === undefined || this.lock !== held) return;
    if (this.atPrompt || this.detector.tracksPrompt !== true) this.writeHeld(held);
  };

  constructor(options: CellLifecycleOptions, detector: FrameDetector, output: CellOutput, host: CellLifecycleHost) {
    this.options = options;
    this.detector = detector;
    this.output = output;
    this.host = host;
    this.interrupts = new Interrupter(detector, host, output);
    this.inputs = new InputChecks(detector, host, output);
    this.defaultCellOptions = normalizeCellOptions(undefined, options.timeoutMs);
  }

  /** Where the lock stands. */
  get state(): LockState {
    return this.lockState;
  }

  /** The cell holding the lock, if any. */
  get holder(): LockHolder | undefined {
    return this.lock;
  }

  /** The frame the output pipeline fills: the lock holder's, once its code was written (`undefined` between cells). */
  get frame(): FrameCollector | undefined {
    return this.lock?.frame;
  }

  /** The live consumers of the lock holder's output. */
  get control(): CellControl | undefined {
    return this.lock;
  }

  // ── The session's calls ───────────────────────────────────────────

  /**
   * Starts a cell (or queues it with `{ queue: true }`) and returns its handle.
   *
   * @throws {SessionBusyError} another cell holds the lock; nothing was written.
   */
  fire(code: string, options: CellOptions | undefined): Cell {
    return this.createRun(code, options).cell;
  }

  /** Starts a cell and resolves with its result (or its `awaiting_input` snapshot with `untilInput`). */
  run(code: string, options: CellOptions | undefined): Promise<CellResult> {
    const run = this.createRun(code, options);
    if (!run.options.untilInput) return run.promise;
    return run.nextSettlePoint(this.lock === run, true);
  }

  /** Input typed outside the cell's code (`write`): a submitting key typed between cells means a command runs until its prompt. */
  noteInput(data: string): void {
    this.inputs.noteInput();
    if (this.lock === undefined && /[\r\n\x03\x04\x1a\x1c]/.test(data)) this.atPrompt = false;
  }

  /** Whether what was typed last into the running cell was seen to reach the program (see {@link InputChecks.inputArrived}). */
  inputArrived(): boolean {
    return this.inputs.inputArrived();
  }

  /** Output arrived or input was typed: a cell that was awaiting input runs again. */
  resume(): void {
    if (this.lock?.status === "awaiting_input") this.lock.setStatus("running");
  }

  // ── How a cell ends ─────────────────────────────────────────────────

  /**
   * The detector says the program is at its prompt: the lock holder's frame ends and it settles
   * (`done`, or the status an interrupt or timeout gave it), or a cell held for the prompt is written.
   */
  frameEnded(end: FrameEnd, decidedBy: DecidedBy): void {
    const run = this.lock;
    const frame = run?.frame;
    if (run === undefined || frame === undefined) {
      this.promptBetweenFrames(run);
      return;
    }
    this.output.closeFrame(frame, run, end.note, end.partialOutput);
    run.frame = undefined;
    const stopping = run.stopping;
    // The frame ended with the chunk being taken in (the prompt's): the cell's time runs to its arrival (one clock read less a cell).
    const chunkAt = this.output.chunkTime;
    const now = chunkAt >= run.startTime ? chunkAt : undefined;
    if (stopping === undefined) this.settle(run, "done", frame, end, false, now, decidedBy);
    else {
      const by = stopping === "timeout" ? "timeout" : "interrupt";
      this.settle(run, stopping, frame, { ...end, exitCode: null, decidedBy: by }, false, now);
    }
    this.release(run, true);
  }

  /** The program is at its prompt with no frame open: a cell held for it is written. */
  private promptBetweenFrames(run: CellRun | undefined): void {
    this.atPrompt = true;
    if (run !== undefined && this.held === run && !this.interrupts.settling) this.writeHeld(run);
  }

  /**
   * The program exited: the lock holder settles `exited` (with `note`, why the session ended it, added
   * to its output), and queued cells fail. Call after the output pipeline took in the last output.
   */
  programExited(exitCode: number | null, note: string | undefined): void {
    this.stopChecks();
    const run = this.lock;
    if (run !== undefined) {
      const frame = run.frame;
      run.frame = undefined;
      if (note !== undefined) frame?.add(`${note}\n`);
      this.settle(run, "exited", frame, { exitCode, decidedBy: "exit" });
      this.lock = undefined;
    }
    this.failQueued();
  }

  /** Stops the periodic input checks and frees the timers (the program exited). */
  stopChecks(): void {
    this.inputs.dispose();
    this.deadline.dispose();
  }

  /** Fails every queued cell: the session closed or the program exited before its turn. */
  failQueued(): void {
    for (const run of this.queue.splice(0)) {
      run.unlisten?.();
      run.fail(
        new SessionClosedError(
          this.options.name,
          this.host.exited() ? "exited before the cell could start" : "was closed before the cell could start",
        ),
      );
    }
  }

  /**
   * Waits for the active (or first queued) cell's next settle point; with no cell, the last result.
   *
   * @throws {AgentTtyError} `ERR_UNKNOWN_CELL` before the first cell.
   */
  wait(timeoutMs: number | undefined, untilInput: boolean): Promise<CellResult> {
    const run = this.lock ?? this.queue[0];
    if (run === undefined) {
      const last = this.lastResult;
      if (last === undefined)
        throw new AgentTtyError("ERR_UNKNOWN_CELL", `session '${this.options.name}' has run no cell yet; call run() first`);
      return Promise.resolve(last);
    }
    if (timeoutMs !== undefined && this.lock === run && this.deadlineRun === run) this.armTimeout(run, timeoutMs);
    return run.nextSettlePoint(this.lock === run, untilInput);
  }

  /** Interrupts the lock holder (see `Session.interrupt`); `undefined` when no cell holds the lock. */
  async interrupt(force: boolean): Promise<CellResult | undefined> {
    const run = this.lock;
    if (run === undefined) return undefined;
    const released = await this.stop(run, "interrupted", { force });
    return released ?? run.result;
  }

  /**
   * A cell's status: the lock holder's, a queued one's, or one of the last {@link RETAINED_CELLS} settled.
   * With no id, the active or last cell.
   *
   * @throws {AgentTtyError} `ERR_UNKNOWN_CELL` for an id it does not know.
   */
  poll(cellId: string | undefined): CellSnapshot | undefined {
    const run =
      cellId === undefined
        ? (this.lock ?? this.queue[0])
        : this.lock?.id === cellId
          ? this.lock
          : this.queue.find((queued) => queued.id === cellId);
    if (run === undefined) {
      const settled = cellId === undefined ? this.lastResult : this.settled.find((result) => result.cellId === cellId);
      if (settled !== undefined) return settledSnapshot(settled);
      if (cellId === undefined) return undefined;
      throw new AgentTtyError(
        "ERR_UNKNOWN_CELL",
        `session '${this.options.name}' has no cell '${cellId}' (the last ${RETAINED_CELLS} cells are kept)`,
      );
    }
    return run.snapshot();
  }

  // ── Starting a cell (inside) ────────────────────────────────────────

  private createRun(code: string, options: CellOptions | undefined): CellRun {
    const normalizedCode = normalizeCode(code);
    const normalized = options === undefined ? this.defaultCellOptions : normalizeCellOptions(options, this.options.timeoutMs);
    this.host.assertOpen();
    if (normalized.signal?.aborted === true) throw normalized.signal.reason;
    if (this.host.heldByHuman()) throw new HumanControlError(this.options.name);
    // (No index -1 on an empty queue: a lookup by name, on the generic path, for every cell.)
    const holder = this.lock ?? (this.queue.length > 0 ? this.queue[this.queue.length - 1] : undefined);
    if (holder !== undefined && !normalized.queue) {
      throw new SessionBusyError(this.options.name, (this.lock ?? holder).id, this.lockState === "timed_out");
    }
    const queued = holder !== undefined;
    // Most cells: the lock is free, the program at its prompt, nobody hears the cell's events. The
    // code is typed first and the record made after, in the same turn: the program starts on it meanwhile.
    if (!queued && this.writesAtOnce()) return this.writeThenBegin(normalizedCode, normalized);
    const run = new CellRun(normalizedCode, normalized, queued);
    if (queued) this.enqueue(run);
    else this.begin(run);
    return run;
  }

  /**
   * Whether a cell that takes the free lock now is written at once, and nothing it does before would be
   * seen before its write: no `fired` event is heard (a recording marks the cell's start before its input).
   */
  private writesAtOnce(): boolean {
    return (this.atPrompt || this.detector.tracksPrompt !== true) && !this.interrupts.settling && this.host.cellEventsHeard?.() === false;
  }

  /**
   * {@link CellLifecycle.begin} and {@link CellLifecycle.write} for a cell that takes the free lock and is
   * written at once, its code typed before its record is made (nothing in between can see the record).
   */
  private writeThenBegin(code: string, options: NormalizedCellOptions): CellRun {
    let bytes: string;
    try {
      bytes = this.detector.encode?.(code) ?? `${code}\r`;
    } catch (error) {
      const run = new CellRun(code, options, false);
      this.lock = run;
      this.lockState = "busy";
      this.armTimeout(run, options.timeoutMs, run.startTime);
      if (options.signal !== undefined) this.watchAbort(run);
      this.encodeFailed(run, error);
      return run;
    }
    this.host.write(bytes);
    // Its start time is read once it is typed.
    const run = new CellRun(code, options, false);
    this.lock = run;
    this.lockState = "busy";
    const now = run.startTime;
    this.armTimeout(run, options.timeoutMs, now);
    if (options.signal !== undefined) this.watchAbort(run);
    this.startFrame(run, now);
    return run;
  }

  /** A cell waits its turn behind the lock holder. */
  private enqueue(run: CellRun): void {
    this.queue.push(run);
    if (this.host.cellEventsHeard?.() !== false) this.host.emit({ type: "fired", cellId: run.id, status: "queued" });
    this.watchAbort(run);
  }

  private begin(run: CellRun): void {
    this.lock = run;
    this.lockState = "busy";
    if (run.status === "queued") {
      // Its turn came: it starts now (a cell that never queued started when it was made).
      run.startedAt = new Date();
      run.startTime = performance.now();
    }
    if (run.status !== "running") run.setStatus("running");
    // Read once: each read of a fractional field makes a number object (16 bytes) until optimized.
    const now = run.startTime;
    this.armTimeout(run, run.options.timeoutMs, now);
    if (run.unlisten === undefined && run.options.signal !== undefined) this.watchAbort(run);
    if (this.host.cellEventsHeard?.() !== false) this.host.emit({ type: "fired", cellId: run.id, status: "running" });
    if ((!this.atPrompt && this.detector.tracksPrompt === true) || this.interrupts.settling) {
      // A command typed outside any cell still runs: its prompt comes first. Or an interrupt is still being taken in.
      this.held = run;
      run.frame = undefined;
      return;
    }
    // Written in the turn it started (or took its turn) in: its start time is the time it is typed.
    this.write(run, now);
  }

  /** Writes the cell to the terminal; its frame starts. `now`: the time, when read in this turn. */
  private write(run: CellRun, now?: number): void {
    if (this.lock !== run || run.result !== undefined) return;
    let bytes: string;
    try {
      bytes = this.detector.encode?.(run.code) ?? `${run.code}\r`;
    } catch (error) {
      this.encodeFailed(run, error);
      return;
    }
    // Written first: the program starts on it while the frame is made (its output is read later, in its own turn).
    this.host.write(bytes);
    this.startFrame(run, now);
  }

  /** The cell's code was written: its frame starts, and the input checks watch it. */
  private startFrame(run: CellRun, now: number | undefined): void {
    run.frame = new FrameCollector(this.options.maxOutputBytes);
    this.output.startCell(run.code);
    run.checks = this.runChecks;
    this.inputs.start(run, now);
  }

  /** The detector threw while encoding the cell: it ends unwritten. */
  private encodeFailed(run: CellRun, error: unknown): void {
    this.host.detectorFailed(error);
    this.settle(run, "interrupted", undefined, { exitCode: null, decidedBy: "detector-error" });
    this.release(run);
  }

  /** Writes a cell that waited for the prompt (or for an interrupt to settle), or settles it if it was stopped meanwhile. */
  private writeHeld(run: CellRun): void {
    this.held = undefined;
    if (run.stopping === undefined && run.result === undefined) {
      queueMicrotask(() => this.write(run));
    } else {
      // Stopped or timed out before it was ever written.
      const status = run.stopping ?? "timeout";
      this.settle(run, status, undefined, { exitCode: null, decidedBy: status === "timeout" ? "timeout" : "interrupt" });
      this.release(run);
    }
  }

  // ── Deadlines and abort signals ─────────────────────────────────────

  /** Arms the lock holder's deadline (only the lock holder has one: {@link CellLifecycle.deadlineRun} while armed). */
  private armTimeout(run: CellRun, timeoutMs: number, now?: number): void {
    this.deadlineRun = run;
    this.deadline.arm(timeoutMs, this.onDeadline, now);
  }

  private watchAbort(run: CellRun): void {
    const signal = run.options.signal;
    if (signal === undefined) return;
    const onAbort = () => {
      if (run.status === "queued") {
        this.queue.splice(this.queue.indexOf(run), 1);
        run.fail(signal.reason);
        return;
      }
      void this.stop(run, "interrupted");
    };
    signal.addEventListener("abort", onAbort, { once: true });
    run.unlisten = () => signal.removeEventListener("abort", onAbort);
  }

  /** `run`'s deadline, if armed, will not come (the timer lapses). */
  private clearDeadline(run: CellRun): void {
    if (this.deadlineRun !== run) return;
    this.deadlineRun = undefined;
    this.deadline.clear();
  }

  private onTimeout(run: CellRun): void {
    if (this.lock !== run || run.result !== undefined) return;
    if (run.options.onTimeout === "interrupt") {
      void this.stop(run, "timeout");
      return;
    }
    // The command may still be running: report, but keep the lock until its prompt or interrupt().
    this.settle(run, "timeout", run.frame, { exitCode: null, decidedBy: "timeout" }, true);
    this.lockState = "timed_out";
  }

  // ── Interrupts ──────────────────────────────────────────────────────

  /**
   * Stops the lock holder (see {@link Interrupter.stop}): it settles with `status` (`timeout` if it had
   * reported one) when its prompt comes back, or keeps the lock as `timed_out` when none comes; when it
   * may be released without its prompt, it is, with a note in its output. Resolves that result when the
   * cell had already reported one.
   */
  private async stop(run: CellRun, status: FinalCellStatus, how: { force?: boolean } = {}): Promise<CellResult | undefined> {
    if (this.lock !== run) return undefined;
    run.stopping ??= run.result?.status === "timeout" ? "timeout" : status;
    this.clearDeadline(run);
    const note = await this.interrupts.stop(
      { holdsLock: () => this.lock === run, released: () => (this.lock === run ? run.whenReleased() : Promise.resolve()) },
      how.force === true,
    );
    if (this.lock !== run) return undefined;
    if (note !== undefined) return this.releaseWithout(run, run.stopping, note);
    if (run.result === undefined) {
      this.settle(run, run.stopping, run.frame, { exitCode: null, decidedBy: "interrupt" }, true);
      this.lockState = "timed_out";
    }
    return undefined;
  }

  /** Releases the lock without the cell's prompt, `note` (why) added to its output. */
  private releaseWithout(run: CellRun, status: FinalCellStatus, note: string): CellResult {
    let result = run.result;
    if (result === undefined) {
      if (run.frame !== undefined) {
        this.output.flushPartial();
        run.frame.collecting = true;
        run.frame.add(`${note}\n`);
      }
      result = this.settle(run, status, run.frame, { exitCode: null, decidedBy: "interrupt" });
    } else result = releasedResult(result, note);
    this.release(run);
    return result;
  }

  // ── Settling and releasing the lock ─────────────────────────────────

  private settle(
    run: CellRun,
    status: FinalCellStatus | "awaiting_input",
    frame: FrameCollector | undefined,
    details: SettleDetails | FrameEnd,
    keepFrame = false,
    now?: number,
    decidedBy?: DecidedBy,
  ): CellResult {
    const reported = run.result;
    if (reported !== undefined) {
      // Already reported (a timeout that kept the lock): wake whoever waits for the lock.
      run.wake(reported);
      return reported;
    }
    // The question of an `awaiting_input` cell is usually an unfinished line: shown after its output.
    const result = cellResult(run, status, frame, details, this.partialLine, now, decidedBy);
    if (status === "awaiting_input") return this.settleAwaitingInput(run, result);
    run.result = result;
    this.clearDeadline(run);
    run.unlisten?.();
    run.status = status;
    this.lastResult = result;
    if (this.settled.length < RETAINED_CELLS) this.settled.push(result);
    else {
      this.settled[this.settledNext] = result;
      this.settledNext = (this.settledNext + 1) % RETAINED_CELLS;
    }
    if (this.host.cellEventsHeard?.() !== false) this.host.emit({ type: "done", cellId: run.id, status, exitCode: result.exitCode });
    run.finish(result);
    if (run.inputWaiters !== undefined) run.resolveInputWaiters(result);
    if (!keepFrame && run.settleWaiters !== undefined) run.wake(result);
    return result;
  }

  /** The cell's `awaiting_input` snapshot: its waiters that asked for it are told; it keeps the lock. */
  private settleAwaitingInput(run: CellRun, result: CellResult): CellResult {
    run.inputResult = result;
    run.setStatus("awaiting_input");
    run.resolveInputWaiters(result);
    return result;
  }

  /** The lock is free (`byPrompt`: its prompt came back): the next queued cell starts (after the current chunk is handled). */
  private release(run: CellRun, byPrompt = false): void {
    if (this.lock !== run) return;
    this.lock = undefined;
    // A line typed after the interrupt (over ssh): the next cell waits for its prompt.
    if (this.interrupts.cellReleased(this.afterInterruptSettled, byPrompt)) this.atPrompt = false;
    this.inputs.stop();
    this.output.endCell();
    if (this.lockState === "busy" || this.lockState === "timed_out") this.lockState = "idle";
    // Nothing queued now, nothing to start: a cell fired from here on takes the free lock at once.
    if (this.queue.length > 0) this.startNextSoon();
  }

  /** Apart from `release` (every cell): an arrow there made it allocate a closure context on every call. */
  private startNextSoon(): void {
    queueMicrotask(() => this.startNext());
  }

  private startNext(): void {
    if (this.lock !== undefined || this.host.exited() || this.host.closing()) return;
    const next = this.queue.shift();
    if (next !== undefined) this.begin(next);
  }
}
