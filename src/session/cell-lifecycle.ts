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
import type { FrameDetector, FrameEnd } from "../detect/types.js";
import { AgentTtyError, HumanControlError, SessionBusyError, SessionClosedError } from "../errors.js";
import type { SessionEventFields } from "../events.js";
import { defineRaw, FrameCollector } from "../frame.js";
import { CappedMap } from "../internal/capped-map.js";
import { cellId } from "../internal/cell-id.js";
import { defer, type Deferred } from "../internal/deferred.js";
import { setLongTimeout, type LongTimeout } from "../internal/long-timeout.js";
import { settleWithin } from "../internal/settle-within.js";
import { normalizeCellOptions, normalizeCode, type CellOptions } from "../options.js";
import { isLinuxProcAvailable, readForeground } from "../pty/proc-state.js";
import type { OutputPipeline } from "./output-pipeline.js";

/** How many settled cells `poll(id)` remembers. */
export const RETAINED_CELLS = 100;
/** How long an interrupt waits for the prompt before settling the cell (the lock stays held). */
const INTERRUPT_GRACE_MS = 3_000;
/** How long `interrupt({ force: true })` waits for the prompt before it releases the lock anyway. */
const INTERRUPT_FORCE_GRACE_MS = 1_000;
/** Over ssh (a typed Ctrl-C): how often it is typed again while the prompt does not come back. */
const REMOTE_INTERRUPT_RESEND_MS = 300;
/** Over ssh: the quiet after an interrupt before the next cell is typed (a Ctrl-C typed again may still be on its way). */
const REMOTE_INTERRUPT_SETTLE_MS = 150;
/** How often a Ctrl-C is sent again while the prompt does not come back. */
const INTERRUPT_RESEND_MS = 250;
/**
 * After a Ctrl-C, how long the program must stay quiet (and be seen reading) before the next cell is
 * typed: a Ctrl-C that reached a shell at its prompt makes it redraw, and keys typed meanwhile are lost.
 */
const INTERRUPT_SETTLE_MS = 20;
/** The longest wait for that quiet: a program that keeps printing does not hold the next cell for ever. */
const INTERRUPT_SETTLE_MAX_MS = 1_000;
/** How long an interrupt watches a shell in the foreground come back to its prompt before taking it for a builtin to Ctrl-C. */
const SHELL_PROMPT_WAIT_MS = 50;
/** How often a running cell checks whether the program waits for input. */
const INPUT_CHECK_MS = 50;
/** Processes of the terminal's session are counted every this many input checks (half a second). */
const PROCESS_CHECK_EVERY = 10;
/** Quiet time before a program blocked reading the terminal counts as awaiting input. */
const INPUT_QUIET_MS = 150;
/** Where /proc cannot tell, quiet time alone decides (a guess, so a longer one). */
const INPUT_FALLBACK_QUIET_MS = 1_500;

type NormalizedCellOptions = ReturnType<typeof normalizeCellOptions>;

/** One cell's life inside the session. */
interface CellRun {
  readonly id: string;
  readonly code: string;
  readonly options: NormalizedCellOptions;
  readonly cell: Cell;
  readonly control: CellControl;
  startedAt: Date;
  startTime: number;
  status: CellStatus;
  /** The final result, once settled. */
  result: CellResult | undefined;
  /** The latest `awaiting_input` snapshot. */
  inputResult: CellResult | undefined;
  frame: FrameCollector | undefined;
  timer: LongTimeout | undefined;
  /** Set while an interrupt waits for the prompt: the status the cell will settle with. */
  stopping: FinalCellStatus | undefined;
  /** Pending `run()`/`wait()` callers that also return on awaiting_input. */
  inputWaiters: Array<Deferred<CellResult>>;
  settleWaiters: Array<Deferred<CellResult>>;
  unlisten: (() => void) | undefined;
}

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
export type CellOutput = Pick<OutputPipeline, "startCell" | "endCell" | "closeFrame" | "flushPartial" | "partialLine" | "lastOutputAt">;

/** What the cell lifecycle asks of the session it serves: the terminal, the program, events. */
export interface CellLifecycleHost {
  /** Writes to the terminal (a cell's code, a Ctrl-C). */
  write(data: string): void;
  /** The program's process id, `undefined` when it has none. */
  pid(): number | undefined;
  /** Whether the program exited. */
  exited(): boolean;
  /** Whether `close()` was called. */
  closing(): boolean;
  /** Throws when no cell may start (the session is closed or the program exited). */
  assertOpen(): void;
  /** Whether a person holds the terminal (cells are refused). */
  heldByHuman(): boolean;
  /** Whether the program's foreground process is blocked reading the terminal (`undefined`: cannot tell here). */
  waitingForInput(): boolean | undefined;
  /** The fork-bomb guard, called every half second while a cell runs. */
  checkProcesses(): void;
  /** Emits a session event (`fired`, `done`). */
  emit(fields: SessionEventFields): void;
  /** A detector's method threw. */
  detectorFailed(error: unknown): void;
}

/**
 * A session's cells from start to end: the lock and the queue behind it,
 * writing a cell when the program is at its prompt, timeouts, abort signals,
 * interrupts (Ctrl-C until the prompt is back, and when the lock may be
 * released without one), the `awaiting_input` settle point (the program
 * blocked reading the terminal), settling a result and the last
 * {@link RETAINED_CELLS} results kept for `poll(id)`.
 *
 * How a cell ends, in one place: its frame ends (the detector saw the
 * prompt: {@link CellLifecycle.frameEnded}, `done`), it times out
 * (`timeout`, the lock kept until its prompt comes), it is interrupted or
 * aborted (`interrupted`), or the program exits ({@link CellLifecycle.programExited},
 * `exited`). It never reads the terminal: the output pipeline fills the
 * frame this gives it (see {@link CellLifecycle.frame}).
 *
 * @internal
 */
export class CellLifecycle {
  readonly #options: CellLifecycleOptions;
  readonly #detector: FrameDetector;
  readonly #output: CellOutput;
  readonly #host: CellLifecycleHost;
  #state: LockState = "idle";
  #lock: CellRun | undefined;
  readonly #queue: CellRun[] = [];
  readonly #settled = new CappedMap<string, CellRun>(RETAINED_CELLS);
  #lastRun: CellRun | undefined;
  /** False after input that submits something (Enter, Ctrl-C) was typed outside a cell, until the next prompt. */
  #atPrompt = true;
  /** A cell waiting for the prompt before it is written. */
  #held: CellRun | undefined;
  /** When a Ctrl-C of an interrupt was last written, until the cell it stopped is released. */
  #interruptSentAt: number | undefined;
  /** While set, the program is still taking in an interrupt: the next cell is held (see INTERRUPT_SETTLE_MS). */
  #settlingInterrupt: Promise<void> | undefined;
  #lastInputAt = 0;
  #inputTimer: NodeJS.Timeout | undefined;
  #inputTicks = 0;

  constructor(options: CellLifecycleOptions, detector: FrameDetector, output: CellOutput, host: CellLifecycleHost) {
    this.#options = options;
    this.#detector = detector;
    this.#output = output;
    this.#host = host;
  }

  /** Where the lock stands. */
  get state(): LockState {
    return this.#state;
  }

  /** The cell holding the lock, if any. */
  get holder(): LockHolder | undefined {
    return this.#lock;
  }

  /** The frame the output pipeline fills: the lock holder's, once its code was written (`undefined` between cells). */
  get frame(): FrameCollector | undefined {
    return this.#lock?.frame;
  }

  /** The live consumers of the lock holder's output. */
  get control(): CellControl | undefined {
    return this.#lock?.control;
  }

  // ── The session's calls ───────────────────────────────────────────

  /**
   * Starts a cell (or queues it with `{ queue: true }`) and returns its handle.
   *
   * @throws {SessionBusyError} another cell holds the lock; nothing was written.
   */
  fire(code: string, options: CellOptions | undefined): Cell {
    return this.#createRun(code, options).cell;
  }

  /** Starts a cell and resolves with its result (or its `awaiting_input` snapshot with `untilInput`). */
  run(code: string, options: CellOptions | undefined): Promise<CellResult> {
    const run = this.#createRun(code, options);
    if (!run.options.untilInput) return run.cell.result;
    return this.#nextSettlePoint(run, true);
  }

  /** Input typed outside the cell's code (`write`): a submitting key typed between cells means a command runs until its prompt. */
  noteInput(data: string): void {
    this.#lastInputAt = performance.now();
    if (this.#lock === undefined && /[\r\n\x03\x04\x1a\x1c]/.test(data)) this.#atPrompt = false;
  }

  /** Output arrived or input was typed: a cell that was awaiting input runs again. */
  resume(): void {
    if (this.#lock?.status === "awaiting_input") this.#setStatus(this.#lock, "running");
  }

  // ── How a cell ends ─────────────────────────────────────────────────

  /**
   * The detector says the program is at its prompt: the lock holder's frame ends and it settles
   * (`done`, or the status an interrupt or timeout gave it), or a cell held for the prompt is written.
   */
  frameEnded(end: FrameEnd, decidedBy: DecidedBy): void {
    const run = this.#lock;
    const frame = run?.frame;
    if (run === undefined || frame === undefined) {
      this.#atPrompt = true;
      if (run !== undefined && this.#held === run && this.#settlingInterrupt === undefined) this.#writeHeld(run);
      return;
    }
    this.#output.closeFrame(frame, run.control, end.note);
    run.frame = undefined;
    const status = run.stopping ?? "done";
    this.#settle(run, status, frame, {
      exitCode: status === "done" ? (end.exitCode ?? null) : null,
      cwd: end.cwd,
      nested: end.nested,
      dropLines: end.dropLines,
      decidedBy: run.stopping === undefined ? decidedBy : run.stopping === "timeout" ? "timeout" : "interrupt",
    });
    this.#release(run);
  }

  /**
   * The program exited: the lock holder settles `exited` (with `note`, why the session ended it, added
   * to its output), and queued cells fail. Call after the output pipeline took in the last output.
   */
  programExited(exitCode: number | null, note: string | undefined): void {
    this.#stopInputChecks();
    const run = this.#lock;
    if (run !== undefined) {
      const frame = run.frame;
      run.frame = undefined;
      if (note !== undefined) frame?.add(`${note}\n`);
      this.#settle(run, "exited", frame, { exitCode, decidedBy: "exit" });
      this.#lock = undefined;
    }
    this.failQueued();
  }

  /** Stops the periodic input checks (the program exited). */
  stopChecks(): void {
    this.#stopInputChecks();
  }

  /** Fails every queued cell: the session closed or the program exited before its turn. */
  failQueued(): void {
    for (const run of this.#queue.splice(0)) {
      run.unlisten?.();
      run.control.fail(
        new SessionClosedError(
          this.#options.name,
          this.#host.exited() ? "exited before the cell could start" : "was closed before the cell could start",
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
    const run = this.#lock ?? this.#queue[0];
    if (run === undefined) {
      const last = this.#lastRun?.result;
      if (last === undefined)
        throw new AgentTtyError("ERR_UNKNOWN_CELL", `session '${this.#options.name}' has run no cell yet; call run() first`);
      return Promise.resolve(last);
    }
    if (timeoutMs !== undefined && this.#lock === run && run.timer !== undefined) this.#armTimeout(run, timeoutMs);
    return this.#nextSettlePoint(run, untilInput);
  }

  /** Interrupts the lock holder (see `Session.interrupt`); `undefined` when no cell holds the lock. */
  async interrupt(force: boolean): Promise<CellResult | undefined> {
    const run = this.#lock;
    if (run === undefined) return undefined;
    const released = await this.#stop(run, "interrupted", { force });
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
        ? (this.#lock ?? this.#queue[0] ?? this.#lastRun)
        : this.#lock?.id === cellId
          ? this.#lock
          : (this.#settled.get(cellId) ?? this.#queue.find((queued) => queued.id === cellId));
    if (run === undefined) {
      if (cellId === undefined) return undefined;
      throw new AgentTtyError(
        "ERR_UNKNOWN_CELL",
        `session '${this.#options.name}' has no cell '${cellId}' (the last ${RETAINED_CELLS} cells are kept)`,
      );
    }
    const result = run.result ?? (run.status === "awaiting_input" ? run.inputResult : undefined);
    if (result === undefined) return { cellId: run.id, status: run.status };
    return { cellId: run.id, status: run.status, output: result.output, exitCode: result.exitCode };
  }

  // ── Starting a cell (inside) ────────────────────────────────────────

  #createRun(code: string, options: CellOptions | undefined): CellRun {
    const normalizedCode = normalizeCode(code);
    const normalized = normalizeCellOptions(options, this.#options.timeoutMs);
    this.#host.assertOpen();
    if (normalized.signal?.aborted === true) throw normalized.signal.reason;
    if (this.#host.heldByHuman()) throw new HumanControlError(this.#options.name);
    const holder = this.#lock ?? this.#queue[this.#queue.length - 1];
    if (holder !== undefined && !normalized.queue) {
      throw new SessionBusyError(this.#options.name, (this.#lock ?? holder).id, this.#state === "timed_out");
    }
    const id = cellId();
    let control!: CellControl;
    const queued = holder !== undefined;
    const run: CellRun = {
      id,
      code: normalizedCode,
      options: normalized,
      cell: new Cell(
        id,
        normalizedCode,
        queued ? "queued" : "running",
        () => this.#snapshotOutput(run),
        (given) => {
          control = given;
        },
      ),
      control: undefined as unknown as CellControl,
      startedAt: new Date(),
      startTime: performance.now(),
      status: queued ? "queued" : "running",
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
    if (queued) {
      this.#queue.push(run);
      this.#host.emit({ type: "fired", cellId: id, status: "queued" });
      this.#watchAbort(run);
    } else {
      this.#begin(run);
    }
    return run;
  }

  #snapshotOutput(run: CellRun): string {
    if (run.result !== undefined) return run.result.output;
    return run.frame?.peek() ?? "";
  }

  #begin(run: CellRun): void {
    this.#lock = run;
    this.#state = "busy";
    run.startedAt = new Date();
    run.startTime = performance.now();
    this.#setStatus(run, "running");
    this.#armTimeout(run, run.options.timeoutMs);
    if (run.unlisten === undefined) this.#watchAbort(run);
    this.#host.emit({ type: "fired", cellId: run.id, status: "running" });
    if ((!this.#atPrompt && this.#detector.tracksPrompt === true) || this.#settlingInterrupt !== undefined) {
      // A command typed outside any cell still runs: its prompt comes first. Or an interrupt is still being taken in.
      this.#held = run;
      run.frame = undefined;
      return;
    }
    this.#write(run);
  }

  /** Writes the cell to the terminal; its frame starts. */
  #write(run: CellRun): void {
    if (this.#lock !== run || run.result !== undefined) return;
    let bytes: string;
    try {
      bytes = this.#detector.encode?.(run.code) ?? `${run.code}\r`;
    } catch (error) {
      this.#host.detectorFailed(error);
      this.#settle(run, "interrupted", undefined, { exitCode: null, decidedBy: "detector-error" });
      this.#release(run);
      return;
    }
    run.frame = new FrameCollector(this.#options.maxOutputBytes);
    this.#output.startCell(run.code);
    this.#lastInputAt = performance.now();
    this.#host.write(bytes);
    this.#inputTimer ??= setInterval(() => {
      if (++this.#inputTicks % PROCESS_CHECK_EVERY === 0) this.#host.checkProcesses();
      this.#checkInput();
    }, INPUT_CHECK_MS);
  }

  /** Writes a cell that waited for the prompt (or for an interrupt to settle), or settles it if it was stopped meanwhile. */
  #writeHeld(run: CellRun): void {
    this.#held = undefined;
    if (run.stopping === undefined && run.result === undefined) {
      queueMicrotask(() => this.#write(run));
    } else {
      // Stopped or timed out before it was ever written.
      const status = run.stopping ?? "timeout";
      this.#settle(run, status, undefined, { exitCode: null, decidedBy: status === "timeout" ? "timeout" : "interrupt" });
      this.#release(run);
    }
  }

  // ── Deadlines and abort signals ─────────────────────────────────────

  #armTimeout(run: CellRun, timeoutMs: number): void {
    run.timer?.clear();
    run.timer = setLongTimeout(() => this.#onTimeout(run), timeoutMs);
  }

  #watchAbort(run: CellRun): void {
    const signal = run.options.signal;
    if (signal === undefined) return;
    const onAbort = () => {
      if (run.status === "queued") {
        this.#queue.splice(this.#queue.indexOf(run), 1);
        run.control.fail(signal.reason);
        return;
      }
      void this.#stop(run, "interrupted");
    };
    signal.addEventListener("abort", onAbort, { once: true });
    run.unlisten = () => signal.removeEventListener("abort", onAbort);
  }

  #onTimeout(run: CellRun): void {
    run.timer = undefined;
    if (this.#lock !== run || run.result !== undefined) return;
    if (run.options.onTimeout === "interrupt") {
      void this.#stop(run, "timeout");
      return;
    }
    // The command may still be running: report, but keep the lock until its prompt or interrupt().
    this.#settle(run, "timeout", run.frame, { exitCode: null, decidedBy: "timeout" }, { keepFrame: true });
    this.#state = "timed_out";
  }

  // ── Interrupts ──────────────────────────────────────────────────────

  /**
   * Ctrl-C (or the detector's key) until the frame ends: a Ctrl-C can be lost (a child between fork
   * and exec), so a plain one is sent again until the prompt is back. A program that never shows a prompt its
   * detector knows keeps the lock, unless it is seen blocked reading the terminal (the safe moment:
   * the next cell is typed to a program waiting for it) or `force` is given: then the lock is
   * released and the result says so. Resolves that result when the cell had already reported one.
   */
  async #stop(run: CellRun, status: FinalCellStatus, how: { force?: boolean } = {}): Promise<CellResult | undefined> {
    if (this.#lock !== run) return undefined;
    run.stopping ??= run.result?.status === "timeout" ? "timeout" : status;
    run.timer?.clear();
    run.timer = undefined;
    const sequence = this.#detector.interruptSequence?.() ?? "\x03";
    // A cell over ssh (or in a container) is interrupted by typing: the local foreground job is ssh itself.
    const byKey = sequence !== "\x03" || this.#detector.interruptByKey?.() === true;
    if (!byKey) await this.#interruptShellJob(run);
    else {
      this.#interruptSentAt = performance.now();
      this.#host.write(sequence);
    }
    const resend = !byKey
      ? setInterval(() => void this.#interruptShellJob(run), INTERRUPT_RESEND_MS)
      : sequence === "\x03"
        ? // Over ssh a Ctrl-C can be lost too (the far command between fork and exec): typed again, rarely,
          // as a round trip may still be bringing the prompt back.
          setInterval(() => {
            if (this.#lock !== run || this.#host.exited()) return;
            this.#interruptSentAt = performance.now();
            this.#host.write(sequence);
          }, REMOTE_INTERRUPT_RESEND_MS)
        : undefined;
    await settleWithin(this.#whenReleased(run), how.force === true ? INTERRUPT_FORCE_GRACE_MS : INTERRUPT_GRACE_MS, undefined);
    clearInterval(resend);
    if (this.#lock !== run) return undefined;
    // Over ssh the local ssh always looks like it reads: only force releases a remote cell.
    const reading = this.#detector.interruptByKey?.() !== true && this.#host.waitingForInput() === true;
    if (reading || how.force === true) {
      const note = reading
        ? "[agent-tty: no prompt this session knows came back after Ctrl-C, but the program is waiting for input: the session was released]"
        : "[agent-tty: interrupt({ force: true }) released the session; the program was not seen waiting for input, so the next cell may be typed into a running command]";
      let result = run.result;
      if (result === undefined) {
        if (run.frame !== undefined) {
          this.#output.flushPartial();
          run.frame.collecting = true;
          run.frame.add(`${note}\n`);
        }
        result = this.#settle(run, run.stopping, run.frame, { exitCode: null, decidedBy: "interrupt" });
      } else {
        // The cell reported before (a timeout that kept the lock): its release is reported as an interrupt.
        const earlier = result;
        result = {
          ...earlier,
          status: "interrupted",
          exitCode: null,
          decidedBy: "interrupt",
          output: earlier.output === "" ? note : `${earlier.output}\n${note}`,
        } as CellResult;
      }
      this.#release(run);
      return result;
    }
    if (run.result === undefined) {
      this.#settle(run, run.stopping, run.frame, { exitCode: null, decidedBy: "interrupt" }, { keepFrame: true });
      this.#state = "timed_out";
    }
    return undefined;
  }

  #whenReleased(run: CellRun): Promise<void> {
    if (this.#lock !== run) return Promise.resolve();
    const released = defer<CellResult>();
    run.settleWaiters.push(released);
    return released.promise.then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Ctrl-C for the cell's command. The terminal turns a written Ctrl-C into SIGINT only a moment later,
   * for whichever process group is in the foreground by then: a command ending at that moment leaves it
   * to the shell at its prompt, where it eats the start of the next cell. So under a shell with marks
   * (Linux), a job in the foreground gets SIGINT itself, and the shell only when it runs the command
   * itself (a builtin loop), not when it is back at its prompt.
   */
  async #interruptShellJob(run: CellRun): Promise<void> {
    const pid = this.#host.pid();
    if (pid === undefined || this.#detector.markPrefix === undefined || !isLinuxProcAvailable()) {
      this.#interruptSentAt = performance.now();
      this.#host.write("\x03");
      return;
    }
    const deadline = performance.now() + SHELL_PROMPT_WAIT_MS;
    for (;;) {
      if (this.#lock !== run || this.#host.exited()) return;
      const foreground = readForeground(pid);
      if (foreground !== undefined && foreground.pgid !== pid) {
        try {
          process.kill(-foreground.pgid, "SIGINT");
        } catch {
          // The job ended meanwhile: its prompt is on its way.
        }
        return;
      }
      // The shell itself: back at its prompt (nothing to interrupt), or running a builtin.
      if (foreground?.blockedOnTerminal === true) return;
      if (performance.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    this.#interruptSentAt = performance.now();
    this.#host.write("\x03");
  }

  /**
   * Holds the next cell until the program has taken in the interrupt's Ctrl-C: quiet for a moment
   * since both the Ctrl-C and its last output, and reading the terminal where that can be told.
   */
  #settleInterrupt(sentAt: number): void {
    const clear = this.#detector.clearLineSequence?.();
    if (clear !== undefined && !this.#host.exited()) {
      this.#host.write(clear);
      sentAt = performance.now();
    }
    const remote = this.#detector.interruptByKey?.() === true;
    const settleMs = remote ? REMOTE_INTERRUPT_SETTLE_MS : INTERRUPT_SETTLE_MS;
    const settling = (async () => {
      const deadline = performance.now() + INTERRUPT_SETTLE_MAX_MS;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, INTERRUPT_SETTLE_MS));
        // Over ssh a Ctrl-C still on its way (typed again just before the prompt came back) lands a round trip later.
        const now = performance.now();
        if (now >= deadline || this.#host.exited() || this.#host.closing()) return;
        if (now - Math.max(this.#output.lastOutputAt, sentAt) >= settleMs && (remote || this.#host.waitingForInput() !== false)) return;
      }
    })();
    this.#settlingInterrupt = settling;
    void settling.then(() => {
      if (this.#settlingInterrupt !== settling) return;
      this.#settlingInterrupt = undefined;
      const held = this.#held;
      if (held === undefined || this.#lock !== held) return;
      if (this.#atPrompt || this.#detector.tracksPrompt !== true) this.#writeHeld(held);
    });
  }

  // ── Settling and releasing the lock ─────────────────────────────────

  #settle(
    run: CellRun,
    status: FinalCellStatus | "awaiting_input",
    frame: FrameCollector | undefined,
    details: {
      exitCode: number | null;
      cwd?: string | undefined;
      nested?: NestingChange | undefined;
      dropLines?: number | undefined;
      decidedBy: DecidedBy;
    },
    how: { keepFrame?: boolean } = {},
  ): CellResult {
    if (run.result !== undefined) {
      // Already reported (a timeout that kept the lock): wake whoever waits for the lock.
      this.#wake(run, run.result);
      return run.result;
    }
    const finished = frame?.finish(details.dropLines);
    let output = finished?.output ?? "";
    if (status === "awaiting_input") {
      // The question is usually an unfinished line: show it.
      const partial = frame?.collecting === true ? this.#output.partialLine : "";
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
    if (status === "awaiting_input") {
      run.inputResult = result;
      this.#setStatus(run, status);
      for (const waiter of run.inputWaiters.splice(0)) waiter.resolve(result);
      return result;
    }
    run.result = result;
    run.timer?.clear();
    run.timer = undefined;
    run.unlisten?.();
    run.status = status;
    this.#retain(run);
    this.#host.emit({ type: "done", cellId: run.id, status, exitCode: result.exitCode });
    run.control.finish(result);
    for (const waiter of run.inputWaiters.splice(0)) waiter.resolve(result);
    if (!how.keepFrame) this.#wake(run, result);
    return result;
  }

  #wake(run: CellRun, result: CellResult): void {
    for (const waiter of run.settleWaiters.splice(0)) waiter.resolve(result);
  }

  #setStatus(run: CellRun, status: CellStatus): void {
    run.status = status;
    run.control.setStatus(status);
  }

  #retain(run: CellRun): void {
    this.#lastRun = run;
    this.#settled.set(run.id, run);
  }

  /** The lock is free: the next queued cell starts (after the current chunk is handled). */
  #release(run: CellRun): void {
    if (this.#lock !== run) return;
    this.#lock = undefined;
    if (this.#interruptSentAt !== undefined) {
      this.#settleInterrupt(this.#interruptSentAt);
      this.#interruptSentAt = undefined;
    }
    this.#stopInputChecks();
    this.#output.endCell();
    if (this.#state === "busy" || this.#state === "timed_out") this.#state = "idle";
    queueMicrotask(() => this.#startNext());
  }

  #startNext(): void {
    if (this.#lock !== undefined || this.#host.exited() || this.#host.closing()) return;
    const next = this.#queue.shift();
    if (next !== undefined) this.#begin(next);
  }

  #nextSettlePoint(run: CellRun, untilInput: boolean): Promise<CellResult> {
    const waiter = defer<CellResult>();
    if (run.result !== undefined) {
      if (this.#lock !== run) return Promise.resolve(run.result);
      // Timed out but still holding the lock: the next settle point is its frame's end.
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

  // ── Awaiting input ──────────────────────────────────────────────────

  /**
   * A running cell whose program went quiet and is blocked reading the
   * terminal (Linux: the foreground process group's state in /proc, select
   * and poll included) is awaiting input.
   */
  #checkInput(): void {
    const run = this.#lock;
    const pid = this.#host.pid();
    if (run === undefined || pid === undefined || run.status !== "running" || run.stopping !== undefined || run.result !== undefined)
      return;
    const quietMs = performance.now() - Math.max(this.#output.lastOutputAt, this.#lastInputAt);
    if (quietMs < INPUT_QUIET_MS) return;
    // A cell over ssh or in a container: the local foreground (ssh) says nothing about the far program.
    const local = this.#detector.interruptByKey?.() !== true;
    const blocked = (local ? this.#host.waitingForInput() : undefined) ?? quietMs >= INPUT_FALLBACK_QUIET_MS;
    if (!blocked) return;
    // The program may have printed its prompt (the frame's end) just before it blocked: let the event
    // loop read what the terminal holds first; anything new means it was not waiting on the cell's behalf.
    const outputAt = this.#output.lastOutputAt;
    const stillWaiting = (): boolean =>
      this.#lock === run &&
      run.status === "running" &&
      run.stopping === undefined &&
      run.result === undefined &&
      this.#output.lastOutputAt === outputAt;
    setImmediate(() => {
      if (!stillWaiting()) return;
      setImmediate(() => {
        if (stillWaiting()) this.#settle(run, "awaiting_input", run.frame, { exitCode: null, decidedBy: "input" });
      });
    });
  }

  #stopInputChecks(): void {
    if (this.#inputTimer !== undefined) clearInterval(this.#inputTimer);
    this.#inputTimer = undefined;
  }
}
