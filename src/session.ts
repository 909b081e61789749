import { EventEmitter } from "eventemitter3";
import type { Cell, CellControl, CellResult, CellSnapshot } from "./cell.js";
import { autoDetector } from "./detect/auto.js";
import type { NestedProgram } from "./detect/nested.js";
import type { ForegroundProgram, FrameDetector, FrameEnd, SpawnPlan } from "./detect/types.js";
import {
  AgentTtyError,
  CellTimeoutError,
  HumanControlError,
  SessionBusyError,
  SessionClosedError,
  SpawnError,
  describeValue,
  invalidArgument,
} from "./errors.js";
import type { SessionEvent, SessionEventFields, SessionEvents } from "./events.js";
import type { ExpectMatch } from "./expect.js";
import { FrameCollector } from "./frame.js";
import { BoundedQueue } from "./internal/bounded-queue.js";
import { defer, type Deferred } from "./internal/deferred.js";
import { NOTHING, own } from "./internal/empty-set.js";
import { normalizeSessionOptions, type CellOptions, type NormalizedSessionOptions, type SessionOptions } from "./options.js";
import {
  assertTerminalArea,
  MAX_TERMINAL_SIDE,
  optionalBoolean,
  optionalPositive,
  optionalSignal,
  optionsObject,
  requiredPositive,
  requiredString,
  optionalString,
} from "./validate.js";
import { buildEnvironment, checkCwd, resolveCommand } from "./pty/environment.js";
import { freezeSession, killSession, killSessionLeftovers } from "./pty/kill.js";
import {
  foregroundRunStamp,
  isForegroundReading,
  isForegroundRunning,
  isLinuxProcAvailable,
  listSessionProcesses,
  readCommandLine,
  readForeground,
  systemTaskCount,
} from "./pty/proc-state.js";
import { terminalIsRaw } from "./pty/termios.js";
import { spawnPty, type PtyExit, type PtyHandlers, type PtyProcess } from "./pty/spawn.js";
import { encodeKeys } from "./terminal/keys.js";
import { Recording, type RecordOptions } from "./record/recording.js";
import { CellLifecycle, type CellLifecycleHost } from "./session/cell-lifecycle.js";
import { expectOutput, expectScreen } from "./session/expectations.js";
import { OutputPipeline, type OutputPipelineHost } from "./session/output-pipeline.js";

/** Where a session stands. */
export type SessionState = "starting" | "idle" | "busy" | "timed_out" | "exited" | "closed";

/** What the program is doing, as far as the terminal shows. */
export type SessionActivity = "idle" | "running" | "awaiting_input" | "exited";

/** The cell holding a session's lock. */
export interface ActiveCell {
  readonly id: string;
  readonly code: string;
  readonly startedAt: Date;
}

/** Options of {@link Session.wait}. */
export interface WaitOptions {
  /** Gives the cell this long (from now) before it times out. @default the session's `timeoutMs` */
  readonly timeoutMs?: number;
  /** Also return when the program waits for input. @default false */
  readonly untilInput?: boolean;
}

/** Options of {@link Session.interrupt}. */
export interface InterruptOptions {
  /**
   * Release the lock even when no prompt came back (within 1 s) and the
   * program is not seen waiting for input (the next cell may then be typed
   * into a command that is still running).
   * @default false
   */
  readonly force?: boolean;
}

/** Options of {@link Session.expect}. */
export interface ExpectOptions {
  /** @default the session's `timeoutMs` */
  readonly timeoutMs?: number;
  /** Aborting rejects the wait with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * What is matched: `"output"`, the clean text that arrives after the call;
   * or `"screen"`, what a person sees (`screen()`), checked now and after
   * each output (at most every 25 ms) — for full-screen programs (vim,
   * less, top, `git rebase -i`) that redraw in place. On timeout the error's
   * `recentOutput` is the last screen.
   * @default "output"
   */
  readonly on?: "output" | "screen";
}

/** Options of {@link Session.output}. */
export interface OutputOptions {
  /** Raw terminal text instead of the clean transcript. @default false */
  readonly raw?: boolean;
  /** Ends the iteration when aborted. */
  readonly signal?: AbortSignal;
}

/** Events one `events()` consumer may fall behind. */
const EVENT_BUFFER_COUNT = 10_000;

/** A detector told of every write to the terminal (bash shell integration: whether its line editor's line is empty). */
interface InputWatcher {
  inputWritten(data: string): void;
}

/**
 * A program running in a pseudo-terminal, driven one cell at a time.
 *
 * @example
 * ```ts
 * await using sh = await Session.spawn();           // bash, shell integration
 * const r = await sh.run("cd /tmp && ls | wc -l");
 * r.status;   // "done"
 * r.exitCode; // 0
 * r.cwd;      // "/tmp"
 * ```
 */
export class Session {
  // The facade over the session's jobs: src/session/output-pipeline.ts reads the terminal (clean
  // lines, detector verdicts, transcript, streams, screen), src/session/cell-lifecycle.ts decides how
  // each cell starts and ends (lock, queue, timeouts, aborts, settling; with session/interrupt.ts for
  // Ctrl-C, session/input-checks.ts for "is it waiting for input", session/cell-run.ts for one cell's
  // record and result), and src/session/expectations.ts waits for text. What stays here: spawning
  // and closing the program, input, events, recordings, and the wiring between them.

  /** Subscription only is public (on/once/off): callers cannot emit a session's events. */
  readonly #emitter = new EventEmitter<SessionEvents>();
  /**
   * Whether anyone ever subscribed (`on`, `once`): until then no event has a listener, and asking the
   * emitter (a lookup by name for each chunk and each cell event) is skipped.
   */
  #subscribed = false;
  /** Whether anyone ever recorded the session or streamed its events: until then no `events()` stream or recording hears a cell's. */
  #streamedOrRecorded = false;
  readonly #options: NormalizedSessionOptions;
  readonly #detector: FrameDetector;
  /**
   * Terminal text in; clean lines, detector verdicts, transcript, streams and the screen out. Made,
   * with {@link Session.#cells}, once the program is started (see {@link Session.#start}).
   */
  #output!: OutputPipeline;
  #pty: PtyProcess | undefined;
  #size: { cols: number; rows: number };
  /** Starting, running (`"idle"`: the cells' lock says more), exited or closed. */
  #state: "starting" | "idle" | "exited" | "closed" = "starting";
  #exitCode: number | null = null;
  #exited = false;
  #readyFrame: FrameCollector | undefined = new FrameCollector(1 << 16);
  /** Until the program is ready (dropped then: nothing waits for it any more). */
  #ready: Deferred<void> | undefined = defer();
  /** The cells: lock, queue, timeouts, interrupts, settling. */
  #cells!: CellLifecycle;
  /** What `close()` waits for while the program runs: made only then. */
  #exit: Deferred<void> | undefined;
  #closing: Promise<void> | undefined;
  /** Why the session was ended from inside (the fork-bomb guard), added to the output of the cell it cut. */
  #exitNote: string | undefined;
  // The sets below are the one shared empty set until something is added (see `own`): most
  // sessions never record or stream events.
  #eventStreams: Set<BoundedQueue<SessionEvent>> = NOTHING;
  #exitWatchers: Set<() => void> = NOTHING;
  /** Holds of people who took the terminal over: agent cells are refused while any is held. */
  #humanHolds = 0;
  /** Recordings in progress (`record()`), fed every output, input, resize and cell mark. */
  #recordings: Set<Recording> = NOTHING;
  /** The TERM the program sees, for recording headers. */
  #term = "xterm-256color";
  /** The detector, when it is told of every write to the terminal (cells, input, a query's answer, its own keys). */
  readonly #inputWatcher: InputWatcher | undefined;
  /** The session as its pipeline, cells and PTY see it (see {@link Session.#Wiring}). */
  readonly #wiring: OutputPipelineHost & CellLifecycleHost & PtyHandlers;

  /** @internal Use {@link Session.spawn}. */
  private constructor(options: NormalizedSessionOptions, detector: FrameDetector) {
    this.#options = options;
    this.#size = { cols: options.cols, rows: options.rows };
    this.#detector = detector;
    const watcher = detector as FrameDetector & Partial<InputWatcher>;
    this.#inputWatcher = typeof watcher.inputWritten === "function" ? (watcher as InputWatcher) : undefined;
    this.#wiring = new Session.#Wiring(this);
  }

  /**
   * The session as its output pipeline, its cells and its PTY see it: one object per session whose
   * methods are shared by every session (a closure per callback was ~2 kB a session, kept while it lives).
   */
  static readonly #Wiring = class implements OutputPipelineHost, CellLifecycleHost, PtyHandlers {
    // TypeScript-private, not #private: a # field is read through a keyed lookup (~40 instructions
    // more), and the pipeline and the cells call these several times a cell.
    private readonly session: Session;

    constructor(session: Session) {
      this.session = session;
    }

    // The output pipeline's host.
    frame(): FrameCollector | undefined {
      const session = this.session;
      return session.#cells.frame ?? session.#readyFrame;
    }
    cellControl(): CellControl | undefined {
      return this.session.#cells.control;
    }
    endFrame(end: FrameEnd): void {
      this.session.#endFrame(end);
    }
    detectorFailed(error: unknown): void {
      this.session.#detectorFailed(error);
    }
    raw(text: string): void {
      const session = this.session;
      if (session.#subscribed && session.#emitter.listenerCount("data") > 0) session.#emitter.emit("data", text);
      if (session.#recordings.size > 0) for (const recording of session.#recordings) recording.output(text);
    }
    answer(text: string): void {
      this.session.#pty?.write(text);
    }
    isRaw(): Promise<boolean> {
      return terminalIsRaw(this.session.#pty?.ptsName);
    }

    // The cells' host.
    write(data: string): void {
      this.session.#pty?.write(data);
    }
    pid(): number | undefined {
      return this.session.#pty?.pid;
    }
    exited(): boolean {
      return this.session.#exited;
    }
    closing(): boolean {
      return this.session.#closing !== undefined;
    }
    assertOpen(): void {
      this.session.#assertOpen();
    }
    heldByHuman(): boolean {
      return this.session.#humanHolds > 0;
    }
    waitingForInput(): boolean | undefined {
      return this.session.#waitingForInput();
    }
    foregroundActive(): boolean {
      const pid = this.session.#pty?.pid;
      return pid !== undefined && (isForegroundRunning(pid) || isForegroundReading(pid));
    }
    runStamp(): string | undefined {
      const pid = this.session.#pty?.pid;
      return pid === undefined ? undefined : foregroundRunStamp(pid);
    }
    checkProcesses(): void {
      this.session.#checkProcesses();
    }
    emit(fields: SessionEventFields): void {
      this.session.#emitEvent(fields);
    }
    cellEventsHeard(): boolean {
      const session = this.session;
      return (
        (session.#streamedOrRecorded && (session.#recordings.size > 0 || session.#eventStreams.size > 0)) ||
        (session.#subscribed && (session.#emitter.listenerCount("cell") > 0 || session.#emitter.listenerCount("event") > 0))
      );
    }

    // The PTY's handlers.
    onData(text: string): void {
      this.session.#onData(text);
    }
    onExit(exit: PtyExit): void {
      this.session.#onExit(exit);
    }
    onInput(data: string): void {
      const session = this.session;
      session.#inputWatcher?.inputWritten(data);
      if (session.#recordings.size > 0) for (const recording of session.#recordings) recording.input(data);
    }
  };

  /**
   * Starts a program in a new PTY and resolves once it is ready for its
   * first cell (its first prompt or frame was seen).
   *
   * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` for a bad option; `ERR_SPAWN`
   * when the command or `cwd` does not exist or the program exits at once;
   * `ERR_NOT_READY` when no prompt came within `readyTimeoutMs` (the program is killed).
   */
  static spawn(options: SessionOptions = {}): Promise<Session> {
    // Not an async function around #start's: one promise (and its turn) less on the way to ready.
    let session: Session;
    try {
      const normalized = normalizeSessionOptions(options);
      const detector = normalized.detector === "auto" ? autoDetector(normalized.command, normalized.args) : normalized.detector;
      session = new Session(normalized, detector);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return session.#start();
  }

  /** Starts the program and resolves with this session once it is ready. */
  async #start(): Promise<Session> {
    const options = this.#options;
    checkCwd(options.cwd, options.command);
    // A hook script in the program (a TUI agent's "stop" hook) learns which session it belongs to.
    const env = buildEnvironment(options.env, options.hardenEnv, options.extendEnv, { AGENT_TTY_SESSION: options.name });
    // Look the command up where the program would: its PATH, or ours when it has none.
    const command = resolveCommand(options.command, env["PATH"] ?? process.env["PATH"]);
    let plan: SpawnPlan = { command, args: [...options.args], cwd: options.cwd, env };
    this.#term = env["TERM"] ?? this.#term;
    if (options.record !== undefined) this.record(options.record);
    try {
      if (this.#detector.setup !== undefined) {
        const prepared = this.#detector.setup(plan);
        // A plan made at once (shell integration) is taken at once: no turn of the microtask queue.
        plan =
          prepared instanceof Object && typeof (prepared as Partial<PromiseLike<SpawnPlan>>).then === "function"
            ? await prepared
            : (prepared as SpawnPlan);
      }
    } catch (error) {
      if (error instanceof AgentTtyError) throw error;
      throw new SpawnError(
        "ERR_SPAWN",
        options.command,
        `detector '${this.#detector.name}' could not prepare '${options.command}': ${String(error)}`,
        "",
        { cause: error },
      );
    }
    try {
      this.#pty = spawnPty(plan, { cols: options.cols, rows: options.rows }, this.#wiring);
    } catch (error) {
      this.#detector.dispose?.();
      throw new SpawnError("ERR_SPAWN", options.command, `could not start '${options.command}': ${String(error)}`, "", { cause: error });
    }
    // Made while the program starts on another core (nothing is read before this call returns): the
    // program's start waits for nothing it does not need.
    this.#output = new OutputPipeline(this.#detector, this.#size, this.#wiring);
    this.#cells = new CellLifecycle(options, this.#detector, this.#output, this.#wiring);
    // From here on the detector hears of every write (see `onInput`).
    this.#inputWatcher?.inputWritten("");
    try {
      // A plain object of its own functions, as detectors have always been given (one may spread it
      // into the io it hands a detector it wraps, or pass `io.endFrame` on as a callback).
      this.#detector.attach?.({
        write: (data) => this.#pty?.write(data),
        endFrame: (end) => this.#endFrame(end ?? {}),
        waitingForInput: () => this.#waitingForInput(),
        inputArrived: () => this.#cells.inputArrived(),
        foreground: () => this.#foreground(),
        reportError: (error) => this.#detectorFailed(error),
      });
    } catch (error) {
      // Nothing may outlive a spawn that failed: the program is already running.
      await this.close();
      throw error;
    }
    const ready = this.#ready as Deferred<void>;
    // The error is made only if the wait runs out: a program that gets ready allocates none.
    const timer = setTimeout(() => {
      ready.reject(
        new SpawnError(
          "ERR_NOT_READY",
          options.command,
          `'${options.command}' did not become ready within ${options.readyTimeoutMs} ms (detector '${this.#detector.name}' saw no prompt); ` +
            `raise readyTimeoutMs or pick a detector that matches its prompt`,
        ),
      );
    }, options.readyTimeoutMs);
    try {
      await ready.promise;
    } catch (error) {
      clearTimeout(timer);
      const output = this.#readyFrame?.peek() ?? "";
      await this.close();
      if (error instanceof SpawnError && error.output === "" && output !== "") {
        throw new SpawnError(error.code as "ERR_SPAWN" | "ERR_NOT_READY", error.command, error.message, output);
      }
      throw error;
    }
    clearTimeout(timer);
    this.#ready = undefined;
    return this;
  }

  // ── Reading the terminal ────────────────────────────────────────────

  #onData(text: string): void {
    try {
      this.#output.push(text);
      this.#cells.resume();
    } finally {
      this.#output.endChunk();
    }
  }

  #detectorFailed(error: unknown): void {
    this.#emitEvent({ type: "error", message: `detector '${this.#detector.name}' failed: ${String(error)}` });
  }

  /** The program is ready for the next cell. */
  #endFrame(end: FrameEnd, decidedBy = this.#detector.name): void {
    this.#output.frameEnded();
    if (this.#readyFrame !== undefined) {
      this.#readyFrame = undefined;
      this.#state = "idle";
      this.#ready?.resolve();
      return;
    }
    this.#cells.frameEnded(end, decidedBy);
  }

  #onExit(exit: PtyExit): void {
    this.#exited = true;
    this.#cells.stopChecks();
    this.#exitCode = exit.signal !== undefined && exit.signal !== 0 && exit.exitCode === 0 ? null : exit.exitCode;
    this.#output.programExited(this.#cells.frame !== undefined);
    for (const watcher of [...this.#exitWatchers]) watcher();
    if (this.#readyFrame !== undefined) {
      const output = this.#readyFrame.finish().output;
      this.#readyFrame = undefined;
      const options = this.#options;
      this.#ready?.reject(
        new SpawnError(
          "ERR_SPAWN",
          options.command,
          `'${options.command}' exited at once with code ${this.#exitCode ?? `signal ${exit.signal}`}; check its arguments` +
            (output === "" ? "" : `; it printed: ${output.slice(-500)}`),
          output,
        ),
      );
    }
    if (this.#state !== "closed") this.#state = "exited";
    this.#cells.programExited(this.#exitCode, this.#exitNote);
    this.#emitEvent({ type: "exit", exitCode: this.#exitCode, message: `'${this.#options.command}' exited with code ${this.#exitCode}` });
    this.#output.endStreams();
    for (const stream of this.#eventStreams) stream.end();
    this.#detector.dispose?.();
    this.#exit?.resolve();
  }

  // ── Cells ───────────────────────────────────────────────────────────

  /**
   * Runs one cell and resolves with its result for every outcome (`done`,
   * `timeout`, `interrupted`, `exited`; `awaiting_input` with `untilInput`).
   *
   * @throws {SessionBusyError} (rejects) another cell holds the lock; nothing was written.
   * @throws {SessionClosedError} (rejects) the session is closed or the program exited.
   */
  run(code: string, options?: CellOptions): Promise<CellResult> {
    // Not `async`: the cell's own promise is handed back as it is, without a wrapper settling a turn later.
    try {
      return this.#cells.run(code, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Starts one cell and returns its handle at once (`cell.status` is
   * `"queued"` with `{ queue: true }` while it waits its turn).
   *
   * @throws {SessionBusyError} another cell holds the lock; nothing was written.
   * @throws {SessionClosedError} the session is closed or the program exited.
   */
  fire(code: string, options?: CellOptions): Cell {
    return this.#cells.fire(code, options);
  }

  /** The fork-bomb guard (see `maxProcesses`): too many processes end the whole session. */
  #checkProcesses(): void {
    const pid = this.#pty?.pid;
    const max = this.#options.maxProcesses;
    if (pid === undefined || max === Infinity || this.#closing !== undefined || this.#exited) return;
    // Fewer tasks on the whole system than the limit: no need to read every process's stat (~150 files).
    if ((systemTaskCount() ?? Infinity) <= max) return;
    const count = listSessionProcesses(pid).length;
    if (count <= max) return;
    freezeSession(pid);
    this.#exitNote = `agent-tty: the session ran ${count} processes, more than maxProcesses (${max}), and was killed; raise maxProcesses if that was intended`;
    this.#emitEvent({ type: "error", message: this.#exitNote });
    void this.close();
  }

  #foreground(): ForegroundProgram | undefined {
    const pid = this.#pty?.pid;
    if (pid === undefined || !isLinuxProcAvailable()) return undefined;
    const foreground = readForeground(pid);
    if (foreground === undefined) return undefined;
    const commandLine = readCommandLine(foreground.pgid);
    return {
      pid: foreground.pgid,
      name: commandLine[0] === undefined ? foreground.command : (commandLine[0].split("/").pop() ?? foreground.command).replace(/^-/, ""),
      commandLine,
      waiting: foreground.blockedOnTerminal,
      isSessionProgram: foreground.pgid === pid,
    };
  }

  #waitingForInput(): boolean | undefined {
    const pty = this.#pty;
    if (pty === undefined || !isLinuxProcAvailable()) return undefined;
    // Seen blocked reading first: what it printed before is then in the terminal, and read by the check after.
    return isForegroundReading(pty.pid) && !pty.hasUnreadOutput();
  }

  /**
   * Waits for the active cell's next settle point and returns a result of
   * the same cell (its whole output so far). With no active cell, returns the
   * last cell's result.
   */
  async wait(options: WaitOptions = {}): Promise<CellResult> {
    const given = optionsObject(options, ["timeoutMs", "untilInput"], "wait options");
    const timeoutMs = optionalPositive(given["timeoutMs"], "timeoutMs");
    const untilInput = optionalBoolean(given["untilInput"], "untilInput") ?? false;
    this.#assertNotClosedByUser();
    return this.#cells.wait(timeoutMs, untilInput);
  }

  /**
   * Sends Ctrl-C (or the detector's interrupt sequence), settles the active
   * cell `"interrupted"` and resolves once the program shows its prompt
   * again (the lock is then free). Resolves with that cell's result, or
   * `undefined` when no cell was active.
   *
   * When no prompt the detector knows comes back within 3 s (psql inside a
   * transaction with an unknown prompt, `exec bash`), the lock is released
   * anyway if the program is seen blocked reading the terminal (Linux
   * `/proc`; while it still runs, taking in the last Ctrl-C, it is looked
   * at again for up to 2 s): it waits for input, so the next cell reaches it. The result's
   * output ends with a note saying so. Otherwise the session stays
   * `timed_out`, unless `{ force: true }` releases it in any case.
   */
  async interrupt(options: InterruptOptions = {}): Promise<CellResult | undefined> {
    const given = optionsObject(options, ["force"], "interrupt() options");
    const force = optionalBoolean(given["force"], "force") ?? false;
    this.#assertOpen();
    return this.#cells.interrupt(force);
  }

  /**
   * The status of a cell: synchronous and cheap. With no id, the active or
   * last cell (`undefined` before the first).
   *
   * @throws {AgentTtyError} `ERR_UNKNOWN_CELL` for an id this session does not know (the last 100 settled cells are kept).
   */
  poll(cellId?: string): CellSnapshot | undefined {
    optionalString(cellId, "cellId");
    return this.#cells.poll(cellId);
  }

  // ── Input ──────────────────────────────────────────────────────────

  /** Writes raw bytes: no framing, no lock. */
  write(data: string): void {
    requiredString(data, "data");
    this.#assertOpen();
    this.#cells.noteInput(data);
    this.#pty?.write(data);
    this.#cells.resume();
  }

  /** Types literal text (no Enter added). */
  type(text: string): void {
    requiredString(text, "text");
    this.write(text);
  }

  /**
   * Presses named keys, in order: `enter tab esc backspace delete up down
   * left right home end pageup pagedown insert f1`…`f12 space`, `ctrl+X`,
   * `alt+X`, `shift+tab`, or single characters. Arrows follow the program's
   * cursor-key mode.
   *
   * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` for an unknown name (listing the valid ones); nothing is written then.
   */
  press(...keys: string[]): void {
    if (keys.length === 0) throw invalidArgument('Expected at least one key name, e.g. press("enter")');
    const bytes = encodeKeys(keys, { applicationCursor: this.#output.screen().applicationCursorKeys });
    this.write(bytes);
  }

  /**
   * Pastes text as a person would: inside bracketed-paste marks when the
   * program enabled them (so a multi-line paste is not run line by line),
   * literally otherwise. No Enter is added.
   */
  paste(text: string): void {
    requiredString(text, "text");
    this.write(this.#output.screen().bracketedPaste ? `\x1b[200~${text}\x1b[201~` : text);
  }

  /**
   * What a person would see now: every visible row (alternate screen
   * included, blank rows too, so `rows` lines), `\n`-joined, each row's
   * trailing spaces trimmed. Stable enough for `toMatchInlineSnapshot`.
   *
   * With `{ styled: true }`, the screen as escape sequences that redraw it
   * on a fresh terminal: colours, attributes, the cursor and the terminal's
   * modes included (what a web terminal that starts watching is sent).
   */
  screen(options: { readonly styled?: boolean } = {}): string {
    this.#assertNotClosedByUser();
    return options.styled === true ? this.#output.screen().styledText() : this.#output.screen().text();
  }

  /**
   * Where the cursor is (0-based column `x` and row `y` of the visible rows)
   * and whether the alternate screen is shown: with {@link Session.screen},
   * enough to redraw the terminal elsewhere (a web page that starts watching).
   */
  cursor(): { readonly x: number; readonly y: number; readonly alternateScreen: boolean } {
    this.#assertNotClosedByUser();
    const screen = this.#output.screen();
    return { ...screen.cursor, alternateScreen: screen.alternateScreen };
  }

  /** Changes the terminal size; the program gets SIGWINCH. */
  resize(cols: number, rows: number): void {
    requiredPositive(cols, "cols", { integer: true, max: MAX_TERMINAL_SIDE });
    requiredPositive(rows, "rows", { integer: true, max: MAX_TERMINAL_SIDE });
    assertTerminalArea(cols, rows);
    this.#assertOpen();
    this.#pty?.resize(cols, rows);
    // Output so far was drawn at the old size: the emulator takes it in before it resizes.
    this.#output.resize(cols, rows);
    this.#size = { cols, rows };
    for (const recording of this.#recordings) recording.resize(cols, rows);
  }

  /**
   * Waits for `pattern` in output that arrives after the call (clean text;
   * a prompt without a newline counts), or with `{ on: "screen" }` on the
   * screen (now or later).
   *
   * @throws {CellTimeoutError} (rejects) no match within `timeoutMs`; carries the recent output.
   */
  expect(pattern: string | RegExp, options: ExpectOptions = {}): Promise<ExpectMatch> {
    if (typeof pattern !== "string" && !(pattern instanceof RegExp)) {
      return Promise.reject(invalidArgument(`Expected \`pattern\` to be a string or a RegExp, got ${describeValue(pattern)}`));
    }
    if (pattern === "") return Promise.reject(invalidArgument("Expected `pattern` to be a non-empty string"));
    let timeoutMs: number;
    let signal: AbortSignal | undefined;
    let on: unknown;
    try {
      const given = optionsObject(options, ["timeoutMs", "signal", "on"], "expect options");
      timeoutMs = optionalPositive(given["timeoutMs"], "timeoutMs") ?? this.#options.timeoutMs;
      signal = optionalSignal(given["signal"]);
      on = given["on"] ?? "output";
      if (on !== "output" && on !== "screen") throw invalidArgument(`Expected \`on\` to be "output" or "screen", got ${describeValue(on)}`);
      this.#assertOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    const source = {
      name: this.#options.name,
      output: this.#output,
      onData: (listener: () => void) => {
        this.on("data", listener);
        return () => this.off("data", listener);
      },
      onExit: (listener: () => void) => {
        (this.#exitWatchers = own(this.#exitWatchers)).add(listener);
        return () => this.#exitWatchers.delete(listener);
      },
    };
    return on === "screen" ? expectScreen(source, pattern, { timeoutMs, signal }) : expectOutput(source, pattern, { timeoutMs, signal });
  }

  // ── Streams, events, transcript ─────────────────────────────────────

  /**
   * Calls `listener` each time the session emits `event`: `cell` (a cell
   * fired or settled), `exit`, `notify`, `data` (raw terminal text) or
   * `event` (every {@link SessionEvent}). Returns the session, for chaining.
   *
   * @example
   * ```ts
   * sh.on("cell", (event) => { if (event.type === "done") console.log(event.cellId, event.status); });
   * ```
   */
  on<Name extends keyof SessionEvents>(event: Name, listener: (...args: SessionEvents[Name]) => void): this {
    this.#subscribed = true;
    this.#emitter.on(event, listener as never);
    return this;
  }

  /** Like {@link Session.on}, for the next time only. */
  once<Name extends keyof SessionEvents>(event: Name, listener: (...args: SessionEvents[Name]) => void): this {
    this.#subscribed = true;
    this.#emitter.once(event, listener as never);
    return this;
  }

  /** Removes a listener added with {@link Session.on} or {@link Session.once} (every listener of `event` when none is given). */
  off<Name extends keyof SessionEvents>(event: Name, listener?: (...args: SessionEvents[Name]) => void): this {
    if (listener === undefined) this.#emitter.removeAllListeners(event);
    else this.#emitter.off(event, listener as never);
    return this;
  }

  /**
   * The session's output from now on: the clean transcript (cells' input
   * lines and output, without prompts or echo), or with `{ raw: true }` the
   * terminal's text. Ends when the session ends. A consumer that falls
   * behind gets `[agent-tty: dropped N bytes]` in place of what was lost.
   */
  output(options: OutputOptions = {}): AsyncIterableIterator<string> {
    const given = optionsObject(options, ["raw", "signal"], "output options");
    const signal = optionalSignal(given["signal"]);
    const queue = this.#output.stream(optionalBoolean(given["raw"], "raw") === true, !this.#exited && this.#closing === undefined);
    signal?.addEventListener("abort", () => queue.end(), { once: true });
    return queue;
  }

  /** Every {@link SessionEvent} from now on; ends when the session ends. */
  events(options: { signal?: AbortSignal } = {}): AsyncIterableIterator<SessionEvent> {
    const signal = optionalSignal(optionsObject(options, ["signal"], "events options")["signal"]);
    const queue: BoundedQueue<SessionEvent> = new BoundedQueue<SessionEvent>({
      maxUnits: EVENT_BUFFER_COUNT,
      sizeOf: () => 1,
      droppedItem: (dropped) => this.#event({ type: "error", message: `dropped ${dropped} events: the consumer fell behind` }),
      onDone: () => this.#eventStreams.delete(queue),
    });
    this.#streamedOrRecorded = true;
    if (this.#exited || this.#closing !== undefined) queue.end();
    else (this.#eventStreams = own(this.#eventStreams)).add(queue);
    signal?.addEventListener("abort", () => queue.end(), { once: true });
    return queue;
  }

  /** Emits a `notify` event other watchers see. */
  notify(message: string): void {
    requiredString(message, "message");
    this.#assertOpen();
    this.#emitEvent({ type: "notify", message });
  }

  /**
   * Tells the session's detector that the program's own hook reported the
   * end of a turn: with `detectors.external()` `"stop"` (or `"error"`)
   * ends the current frame, so the active cell settles `done`. Also emits a
   * `notify` event naming the signal. Returns whether a detector took it.
   *
   * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` for an event other than `"stop"` / `"error"`; `ERR_SESSION_CLOSED`.
   */
  signal(event: "stop" | "error", payload?: unknown): boolean {
    if (event !== "stop" && event !== "error")
      throw invalidArgument(`Expected \`event\` to be "stop" or "error", got ${describeValue(event)}`);
    this.#assertOpen();
    const taker = this.#detector as FrameDetector & { signal?: (event: "stop" | "error", payload?: unknown) => boolean };
    const taken = typeof taker.signal === "function" ? taker.signal(event, payload) : false;
    this.#emitEvent({ type: "notify", message: `signal ${event}` });
    return taken;
  }

  /**
   * A person takes the terminal over (a web page's "take over", `k attach`):
   * until every hold is disposed, `run()` and `fire()` throw
   * {@link HumanControlError} (`ERR_HUMAN_CONTROL`) and write nothing, from
   * whichever surface they come (HTTP, tools, the daemon). `write`, `type`
   * and `press` stay open: they are how the person types.
   *
   * @example
   * ```ts
   * const hold = sh.takeOver();
   * sh.write("ls\r");            // the person types
   * hold.dispose();              // give it back: cells run again
   * ```
   */
  takeOver(): { dispose(): void } {
    this.#assertOpen();
    this.#humanHolds++;
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        this.#humanHolds--;
      },
    };
  }

  /** Whether a person holds the terminal (see {@link Session.takeOver}). */
  get heldByHuman(): boolean {
    return this.#humanHolds > 0;
  }

  /**
   * Adds a line to the clean transcript (what `history()` returns) and the
   * clean `output()` streams, as a person saw it: for a command a person
   * typed on a shared terminal, whose echo the detector leaves out.
   */
  recordInput(line: string): void {
    requiredString(line, "line");
    this.#assertOpen();
    this.#output.recordInput(line.replace(/\r?\n$/, ""));
  }

  /** The last `lines` lines of the clean transcript, `\n`-joined. */
  history(lines = 100): string {
    optionalPositive(lines, "lines", { integer: true });
    return this.#output.history(lines);
  }

  #event(fields: SessionEventFields): SessionEvent {
    return { ...fields, session: this.#options.name, ts: new Date().toISOString() };
  }

  #emitEvent(fields: SessionEventFields): void {
    if (this.#recordings.size > 0) this.#markCell(fields);
    const name = fields.type === "fired" || fields.type === "done" ? "cell" : fields.type === "error" ? undefined : fields.type;
    const heard =
      this.#subscribed && ((name !== undefined && this.#emitter.listenerCount(name) > 0) || this.#emitter.listenerCount("event") > 0);
    if (!heard && this.#eventStreams.size === 0) return; // every cell emits two: only build them for someone
    const event = this.#event(fields);
    for (const stream of this.#eventStreams) stream.push(event);
    if (name !== undefined) this.#emitter.emit(name, event);
    this.#emitter.emit("event", event);
  }

  /** Marks the start (with its code) and the end (with its status) of a cell in every recording. */
  #markCell(fields: SessionEventFields): void {
    let label: string | undefined;
    if (fields.type === "fired" && fields.status === "running") label = `cell ${fields.cellId} start: ${this.#cells.holder?.code ?? ""}`;
    else if (fields.type === "done") {
      label = `cell ${fields.cellId} end: ${fields.status}${typeof fields.exitCode === "number" ? ` (exit ${fields.exitCode})` : ""}`;
    }
    if (label !== undefined) for (const recording of this.#recordings) recording.mark(label);
  }

  /**
   * Records the terminal to an asciicast v2 file (playable by `asciinema
   * play` and asciinema-player) from now on: what it showed (`o` events),
   * what was typed into it (`i`), resizes (`r`) and a mark (`m`) at the start
   * and end of each cell. Streamed to disk with bounded memory; the
   * recording ends with `stop()` or `close()`, which write the rest. Several
   * recordings can run at once.
   *
   * @example
   * ```ts
   * const rec = sh.record("session.cast");
   * await sh.run("make test");
   * rec.stop();   // or await sh.close()
   * ```
   * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` for a bad path; `ERR_RECORD` when the file cannot be created;
   * `ERR_SESSION_CLOSED` after close.
   */
  record(path: string, options: RecordOptions = {}): Recording {
    this.#assertOpen();
    const given = optionsObject(options, ["title", "flushBytes", "flushIntervalMs"], "record options");
    const title = optionalString(given["title"], "title") ?? this.#options.name;
    const flushBytes = optionalPositive(given["flushBytes"], "flushBytes", { integer: true });
    const flushIntervalMs = optionalPositive(given["flushIntervalMs"], "flushIntervalMs");
    const recording: Recording = new Recording(
      path,
      {
        version: 2,
        width: this.#size.cols,
        height: this.#size.rows,
        command: [this.#options.command, ...this.#options.args].join(" "),
        title,
        env: { TERM: this.#term, SHELL: process.env["SHELL"] ?? "/bin/sh" },
      },
      { ...(flushBytes === undefined ? {} : { flushBytes }), ...(flushIntervalMs === undefined ? {} : { flushIntervalMs }) },
      () => this.#recordings.delete(recording),
    );
    this.#streamedOrRecorded = true;
    (this.#recordings = own(this.#recordings)).add(recording);
    return recording;
  }

  // ── State and lifecycle ─────────────────────────────────────────────

  /** `"starting" | "idle" | "busy" | "timed_out" | "exited" | "closed"`. */
  get state(): SessionState {
    return this.#state === "idle" ? this.#cells.state : this.#state;
  }

  /** What the program is doing: `"idle" | "running" | "awaiting_input" | "exited"`. */
  get activity(): SessionActivity {
    if (this.#exited || this.#closing !== undefined) return "exited";
    const run = this.#cells.holder;
    if (run === undefined) return "idle";
    return run.status === "awaiting_input" ? "awaiting_input" : "running";
  }

  /** The terminal's width in columns. */
  get cols(): number {
    return this.#size.cols;
  }

  /** The terminal's height in rows. */
  get rows(): number {
    return this.#size.rows;
  }

  /** The program's process id. */
  get pid(): number | undefined {
    return this.#pty?.pid;
  }

  /** The program's exit status once it exited (`null` before, or when killed by a signal). */
  get exitCode(): number | null {
    return this.#exitCode;
  }

  get name(): string {
    return this.#options.name;
  }

  get label(): string | undefined {
    return this.#options.label;
  }

  get description(): string | undefined {
    return this.#options.description;
  }

  /** The command the session runs, as given. */
  get command(): string {
    return this.#options.command;
  }

  /** The detector in use. */
  get detector(): FrameDetector {
    return this.#detector;
  }

  /**
   * The nested programs cells now go to, outermost first: empty while cells go to the session's own
   * program; `[ssh]` after a cell ran `ssh host`; `[bash, python3]` after `bash` then `python3`.
   * A cell that enters or leaves one says so in `CellResult.nested`.
   */
  get nested(): readonly NestedProgram[] {
    return this.#detector.nestedStack?.() ?? [];
  }

  /** The cell holding the lock, if any. */
  get activeCell(): ActiveCell | null {
    const run = this.#cells.holder;
    return run === undefined ? null : { id: run.id, code: run.code, startedAt: run.startedAt };
  }

  /** Milliseconds since the program last printed anything. */
  get quietMs(): number {
    return performance.now() - this.#output.lastOutputAt;
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) throw new SessionClosedError(this.#options.name);
    if (this.#exited) throw new SessionClosedError(this.#options.name, `exited (code ${this.#exitCode})`);
  }

  #assertNotClosedByUser(): void {
    if (this.#closing !== undefined) throw new SessionClosedError(this.#options.name);
  }

  /**
   * Ends the program (SIGHUP to its process group, then SIGKILL to every
   * process of its terminal session after `closeGraceMs`), settles an active
   * cell `"exited"`, frees the PTY. Idempotent. After the program ended by
   * itself (or was killed), what it left running in its terminal session
   * (background jobs) is ended too.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const pty = this.#pty;
    this.#cells.failQueued();
    if (pty !== undefined && !this.#exited) {
      this.#exit ??= defer();
      await killSession(pty, this.#exit.promise, this.#options.closeGraceMs);
    } else if (pty !== undefined) {
      // The program ended first (exit, or killed): its background jobs may still run in its terminal session.
      await killSessionLeftovers(pty.pid);
    }
    pty?.destroy();
    if (!this.#exited) {
      // The PTY never reported an exit: settle everything as if it had.
      this.#onExit({ exitCode: this.#exitCode ?? 0, signal: undefined });
    }
    this.#state = "closed";
    this.#detector.dispose?.();
    this.#output.dispose();
    for (const recording of [...this.#recordings]) recording.stop();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
