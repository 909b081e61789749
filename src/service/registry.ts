/**
 * The sessions registry every transport (the `k` daemon, HTTP, the web
 * page) works through: named sessions with the bookkeeping around them —
 * who holds the terminal (a person or the agents), the recent cells and
 * their exit codes, the recovery mark of a timed-out turn, signals, a raw
 * tail for debugging — so each behaviour is written once.
 */
import { EventEmitter } from "eventemitter3";
import {
  AgentTtyError,
  SessionManager,
  type Cell,
  type CellOptions,
  type CellResult,
  type FrameDetector,
  type Session,
  type SessionOptions,
} from "../index.js";
import { encodeKeys } from "../terminal/keys.js";
import { HumanControlError, NeedsRecoveryError, NoSessionError } from "./errors.js";

/** Recent cells kept per session for listings. */
const CELL_RECORDS = 50;
/** Recent signals kept per session for the debug view. */
const SIGNAL_RECORDS = 20;
/** Raw terminal bytes kept per session for the debug view. */
const RAW_TAIL_CHARS = 8_192;

/** One cell as listings show it. */
export interface CellRecord {
  readonly cellId: string;
  readonly code: string;
  /** `running` until it settles, then its final status. */
  status: CellResult["status"] | "running" | "queued";
  exitCode: number | null;
  readonly startedAt: Date;
  durationMs: number | null;
}

/** A signal a program's hook sent (`POST …/signal`, `session.signal()`). */
export interface SignalRecord {
  readonly event: "stop" | "error";
  readonly payload: unknown;
  readonly at: Date;
  /** Whether the session's detector took it (ended a frame). */
  readonly taken: boolean;
}

/** Who holds the terminal now. */
export interface ControlHolder {
  /** Opaque id of the holder (a web page's connection, a `k attach` client). */
  readonly id: string;
  /** Shown in listings, such as "web" or "k attach". */
  readonly via: string;
  readonly since: Date;
}

/** What happened in the registry (beyond the sessions' own events). */
export type ServiceEvent =
  | { readonly type: "created" | "closed"; readonly session: string }
  | { readonly type: "control"; readonly session: string; readonly holder: ControlHolder | null }
  | { readonly type: "cell"; readonly session: string; readonly cell: CellRecord }
  | { readonly type: "signal"; readonly session: string; readonly signal: SignalRecord };

/**
 * One session and its bookkeeping. Agent operations check
 * {@link SessionEntry.assertAgentMayAct} first; a person's keystrokes go
 * through {@link SessionEntry.humanWrite}.
 */
export class SessionEntry {
  readonly name: string;
  readonly session: Session;
  /** The command line as the user gave it. */
  readonly commandLine: string;
  readonly createdAt: Date;
  /** Newest last. */
  readonly cells: CellRecord[] = [];
  readonly signals: SignalRecord[] = [];
  #holders: ControlHolder[] = [];
  readonly #holds = new Map<string, { dispose(): void }>();
  #recovery: { cellId: string } | null = null;
  #lastError: string | null = null;
  #rawChunks: string[] = [];
  #rawChars = 0;
  readonly #emit: (event: ServiceEvent) => void;

  /** @internal */
  constructor(name: string, session: Session, commandLine: string, createdAt: Date, emit: (event: ServiceEvent) => void) {
    this.name = name;
    this.session = session;
    this.commandLine = commandLine;
    this.createdAt = createdAt;
    this.#emit = emit;
    // Recent chunks, joined only when asked for: no string building per chunk.
    session.on("data", (text) => {
      this.#rawChunks.push(text);
      this.#rawChars += text.length;
      while (this.#rawChunks.length > 1 && this.#rawChars - (this.#rawChunks[0] as string).length >= RAW_TAIL_CHARS) {
        this.#rawChars -= (this.#rawChunks.shift() as string).length;
      }
    });
    session.on("event", (event) => {
      if (event.type === "error" && event.message !== undefined) this.#lastError = event.message;
    });
  }

  /** The person holding the terminal (the first of them), or null. */
  get control(): ControlHolder | null {
    return this.#holders[0] ?? null;
  }

  /** The cell whose timeout left the session needing recovery, or null. */
  get needsRecovery(): { cellId: string } | null {
    return this.#recovery;
  }

  /** The last error a cell, the detector or a call met. */
  get lastError(): string | null {
    return this.#lastError;
  }

  /** The last bytes the terminal produced, escape sequences included. */
  get rawTail(): string {
    return this.#rawChunks.join("").slice(-RAW_TAIL_CHARS);
  }

  /**
   * Throws unless an agent may run a cell or type now.
   * @throws {HumanControlError} while a person holds the terminal.
   * @throws {NeedsRecoveryError} after a timed-out cell, until interrupted.
   */
  assertAgentMayAct(): void {
    if (this.#holders.length > 0) throw new HumanControlError(this.name);
    if (this.#recovery !== null) throw new NeedsRecoveryError(this.name, this.#recovery.cellId);
  }

  /** Starts an agent cell (after {@link assertAgentMayAct}); records it and its outcome. */
  fire(code: string, options: CellOptions = {}): Cell {
    this.assertAgentMayAct();
    let cell: Cell;
    try {
      cell = this.session.fire(code, options);
    } catch (error) {
      if (error instanceof AgentTtyError) this.#lastError = error.message;
      throw error;
    }
    const record: CellRecord = {
      cellId: cell.id,
      code,
      status: cell.status === "queued" ? "queued" : "running",
      exitCode: null,
      startedAt: new Date(),
      durationMs: null,
    };
    this.cells.push(record);
    if (this.cells.length > CELL_RECORDS) this.cells.shift();
    this.#emit({ type: "cell", session: this.name, cell: record });
    void cell.result.then((result) => {
      record.status = result.status;
      record.exitCode = result.exitCode;
      record.durationMs = result.durationMs;
      if (result.status === "timeout") {
        this.#recovery = { cellId: result.cellId };
        this.#lastError = `cell ${result.cellId} timed out after ${Math.round(result.durationMs)} ms`;
      }
      this.#emit({ type: "cell", session: this.name, cell: record });
    });
    return cell;
  }

  /** Runs an agent cell to its settle point (see `Session.run`). */
  async run(code: string, options: CellOptions = {}): Promise<CellResult> {
    const cell = this.fire(code, options);
    if (options.untilInput === true) return this.session.wait({ untilInput: true }).then((r) => (r.cellId === cell.id ? r : cell.result));
    return cell.result;
  }

  /**
   * Writes a prompt to a TUI agent, submits it and waits for the end of its
   * turn (its stop signal, with `detectors.external()`); returns the
   * turn's clean text and result. A turn that times out leaves the session
   * needing recovery.
   */
  async ask(prompt: string, options: { readonly timeoutMs?: number } = {}): Promise<{ text: string; result: CellResult }> {
    const result = await this.run(prompt, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
    return { text: result.output.trim(), result };
  }

  /** Ctrl-C the active cell; clears the recovery mark. Resolves the interrupted cell's result, if there was one. */
  async interrupt(): Promise<CellResult | undefined> {
    const result = await this.session.interrupt();
    this.#recovery = null;
    return result;
  }

  /**
   * Agent input: `text` typed literally, then `keys` pressed.
   * @throws {HumanControlError} while a person holds the terminal.
   */
  input(text: string | undefined, keys: readonly string[] | undefined): void {
    if (this.#holders.length > 0) throw new HumanControlError(this.name);
    // Every key name is checked before anything is typed: bad input writes nothing.
    if (keys !== undefined && keys.length > 0) encodeKeys(keys, { applicationCursor: false });
    if (text !== undefined && text !== "") this.session.type(text);
    if (keys !== undefined && keys.length > 0) this.session.press(...keys);
  }

  /**
   * A person takes the terminal (`Session.takeOver`): agent cells from any
   * surface get {@link HumanControlError} until {@link release}.
   */
  take(id: string, via: string): ControlHolder {
    const existing = this.#holders.find((h) => h.id === id);
    if (existing !== undefined) return existing;
    const holder: ControlHolder = { id, via, since: new Date() };
    try {
      this.#holds.set(id, this.session.takeOver());
    } catch (error) {
      // A session that just closed: nothing to hold.
      if (!(error instanceof AgentTtyError && error.code === "ERR_SESSION_CLOSED")) throw error;
    }
    this.#holders.push(holder);
    if (this.#holders.length === 1) this.#emit({ type: "control", session: this.name, holder });
    return holder;
  }

  /** Gives the terminal back; returns whether `id` held it. */
  release(id: string): boolean {
    const before = this.#holders.length;
    this.#holders = this.#holders.filter((h) => h.id !== id);
    if (this.#holders.length === before) return false;
    this.#holds.get(id)?.dispose();
    this.#holds.delete(id);
    if (this.#holders.length === 0) this.#emit({ type: "control", session: this.name, holder: null });
    return true;
  }

  /** Whether `id` holds the terminal. */
  holds(id: string): boolean {
    return this.#holders.some((h) => h.id === id);
  }

  /**
   * A person's keystrokes (raw terminal input), from a holder only; they reach the program, and the
   * session's transcript shows the commands they submit as the terminal echoed them (see `Session.history`).
   */
  humanWrite(id: string, data: string): boolean {
    if (!this.holds(id)) return false;
    this.session.write(data);
    return true;
  }

  /** The program's hook reports the end of a turn (see `Session.signal`). */
  signal(event: "stop" | "error", payload?: unknown): SignalRecord {
    const taken = this.session.signal(event, payload);
    const record: SignalRecord = { event, payload: payload ?? null, at: new Date(), taken };
    this.signals.push(record);
    if (this.signals.length > SIGNAL_RECORDS) this.signals.shift();
    if (event === "error")
      this.#lastError = `the program's hook signalled an error${payload === undefined ? "" : `: ${JSON.stringify(payload).slice(0, 200)}`}`;
    this.#emit({ type: "signal", session: this.name, signal: record });
    return record;
  }

  /** The running cell, if any. */
  get runningCell(): CellRecord | null {
    const active = this.session.activeCell;
    if (active === null) return null;
    return (
      this.cells.find((c) => c.cellId === active.id) ?? {
        cellId: active.id,
        code: active.code,
        status: "running",
        exitCode: null,
        startedAt: active.startedAt,
        durationMs: null,
      }
    );
  }
}

/** What {@link SessionService.create} takes: the session's options, its name and the command line to show. */
export interface CreateInput extends Omit<SessionOptions, "name"> {
  /** The session's name; generated (`s1`, `s2`, …) when absent. */
  readonly name?: string;
  /** The command line as listings show it. @default command and args joined */
  readonly commandLine?: string;
}

/** Options of a {@link SessionService}. */
export interface SessionServiceOptions {
  /** Where sessions live; sessions created in it directly are adopted when first asked for. @default a new SessionManager */
  readonly manager?: SessionManager;
  /** Extra environment for every session created through the service (a signal URL and token, say), by session name. */
  readonly env?: (name: string) => Record<string, string>;
}

/**
 * The registry of named sessions the transports share.
 *
 * @example
 * ```ts
 * const service = new SessionService();
 * const entry = await service.create({ name: "work", command: "bash" });
 * const result = await entry.run("echo hi");
 * await service.closeAll();
 * ```
 */
export class SessionService {
  readonly manager: SessionManager;
  readonly events = new EventEmitter<{ event: [ServiceEvent] }>();
  readonly #entries = new Map<string, SessionEntry>();
  readonly #env: ((name: string) => Record<string, string>) | undefined;
  readonly #starting = new Map<string, (event: "stop" | "error", payload?: unknown) => boolean>();
  #counter = 0;

  constructor(options: SessionServiceOptions = {}) {
    this.manager = options.manager ?? new SessionManager();
    this.#env = options.env;
  }

  /** Spawns a named session and starts its bookkeeping. Errors as `SessionManager.create`. */
  async create(input: CreateInput): Promise<SessionEntry> {
    const { name: given, commandLine, ...options } = input;
    let name = given;
    if (name === undefined) {
      do name = `s${++this.#counter}`;
      while (this.manager.get(name) !== undefined);
    }
    const extraEnv = this.#env?.(name) ?? {};
    // A program whose hook signals "ready" (external({ readyOn: "signal" })) calls back while it starts.
    const detector = options.detector as (FrameDetector & { signal?: (event: "stop" | "error", payload?: unknown) => boolean }) | undefined;
    if (typeof detector === "object" && typeof detector.signal === "function") this.#starting.set(name, detector.signal.bind(detector));
    let session: Session;
    try {
      session = await this.manager.create(
        name,
        Object.keys(extraEnv).length > 0 ? { ...options, env: { ...extraEnv, ...options.env } } : options,
      );
    } finally {
      this.#starting.delete(name);
    }
    const line = commandLine ?? [options.command ?? "bash", ...(options.args ?? [])].join(" ");
    return this.#adopt(name, session, line, new Date());
  }

  #adopt(name: string, session: Session, commandLine: string, createdAt: Date): SessionEntry {
    const entry = new SessionEntry(name, session, commandLine, createdAt, (event) => this.events.emit("event", event));
    this.#entries.set(name, entry);
    session.once("exit", () => {
      if (this.#entries.get(name) === entry) {
        this.#entries.delete(name);
        this.events.emit("event", { type: "closed", session: name });
      }
    });
    this.events.emit("event", { type: "created", session: name });
    return entry;
  }

  /**
   * The entry of `name`.
   * @throws {NoSessionError} when no open session has that name; `ERR_INVALID_ARGUMENT` for an invalid name.
   */
  get(name: string): SessionEntry {
    const known = this.#entries.get(name);
    if (known !== undefined && known.session.state !== "closed") return known;
    const session = this.manager.get(name);
    if (session === undefined || session.state === "closed" || session.state === "exited") throw new NoSessionError(name);
    const info = this.manager.list().find((s) => s.name === name);
    return this.#adopt(name, session, session.command, info?.createdAt ?? new Date());
  }

  /** Every open session, oldest first. */
  entries(): SessionEntry[] {
    return this.manager.list().flatMap((info) => {
      try {
        return [this.get(info.name)];
      } catch {
        return [];
      }
    });
  }

  /**
   * The program's hook reports the end of a turn (or, while it starts, that
   * it is ready): `SessionEntry.signal` for an open session.
   * @throws {NoSessionError} when no session of that name is open or starting.
   */
  signal(name: string, event: "stop" | "error", payload?: unknown): SignalRecord {
    const starting = this.#starting.get(name);
    if (starting !== undefined) return { event, payload: payload ?? null, at: new Date(), taken: starting(event, payload) };
    return this.get(name).signal(event, payload);
  }

  /** Closes `name`; false if there was none. */
  async close(name: string): Promise<boolean> {
    const entry = this.#entries.get(name);
    const closed = await this.manager.close(name);
    if (entry !== undefined && this.#entries.get(name) === entry) {
      this.#entries.delete(name);
      this.events.emit("event", { type: "closed", session: name });
    }
    return closed;
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const names = [...this.#entries.keys()];
    await this.manager.closeAll();
    for (const name of names) {
      if (this.#entries.delete(name)) this.events.emit("event", { type: "closed", session: name });
    }
  }
}
