/**
 * The daemon's request handling: one {@link Slot} per session, holding the
 * library `Session` plus what the original CLI kept in files (the cell
 * lock, unread results, the filtered log), and the ops of the protocol.
 * Imports the library through its public entry point only.
 */
import { accessSync, constants as fsConstants, statSync } from "node:fs";
import type { Socket } from "node:net";
import {
  AgentTtyError,
  CellTimeoutError,
  detectors,
  SessionBusyError,
  SessionManager,
  type CellResult,
  type FrameDetector,
  type Session,
} from "../../index.js";
import { SessionService, type SessionEntry } from "../../service/index.js";
import { planCommand } from "./command-line.js";
import { cellErrorReply, errReply, jsonReply, NO_SESSION_FOUND, noSession, replyWithoutSessions, textReply } from "../shared/messages.js";
import {
  CELL_ID,
  LineSplitter,
  LineTooLongError,
  PROTOCOL_VERSION,
  type AttachInput,
  type Reply,
  type Request,
  type StreamLine,
} from "../shared/protocol.js";
import { pyJson, pyRepr, pyTimestamp, type PyValue } from "../shared/python.js";
import { formatEntry, WatchLog } from "./watch-log.js";

/** A cell result as `k` prints it (keys in this order). */
type CellJson = { [key: string]: PyValue | undefined } & { cell_id: string; status: string };

/** The original's lock file, kept in memory: which cell owns the session. */
interface Lock {
  cellId: string;
  kind: "run" | "fire";
  timedOut: boolean;
  timeoutPolled: boolean;
  /** A fired cell that finished: the next cell may take the lock. */
  completed: boolean;
}

/** A km event (without `ts`, added when sent). */
type KmEvent = { [key: string]: string };

const RESULT_CAPACITY = 100;
const DEFAULT_COLS = 200;
const DEFAULT_ROWS = 50;
/** Longest request line a client may send (a cell's code rides in it). */
const MAX_REQUEST_LINE_CHARS = 16 << 20;
/** How long `k new` waits for the first prompt before answering "OK" (the session goes on starting). */
const NEW_GRACE_MS = 100;
/** How long a session may take to show its first prompt (`k new` answered before; a heavy rc file on a loaded machine is slow). */
const READY_TIMEOUT_MS = 30_000;
/** How long `k int` waits for the program to come back after Ctrl-C. */
const INTERRUPT_WAIT_MS = 5_000;

/** A cell id given on the command line: what `k` prints. */

/** One session and the CLI's bookkeeping around it. */
class Slot {
  lock: Lock | null = null;
  readonly results = new Map<string, CellJson>();
  /** Final km status of recent cells, for monitors that arrive late. */
  readonly settled = new Map<string, string>();
  readonly log = new WatchLog();
  readonly listeners = new Set<(event: KmEvent) => void>();
  readonly closeListeners = new Set<() => void>();
  attached = 0;
  killing = false;
  closed = false;

  readonly sh: Session;

  constructor(
    readonly name: string,
    readonly entry: SessionEntry,
    readonly command: string,
    readonly cols: number,
    readonly rows: number,
  ) {
    this.sh = entry.session;
  }

  remember(cellId: string, json: CellJson): void {
    this.results.delete(cellId);
    this.results.set(cellId, json);
    while (this.results.size > RESULT_CAPACITY) {
      const oldest = this.results.keys().next().value as string;
      this.results.delete(oldest);
    }
  }

  emit(event: KmEvent): void {
    if (event["cell_id"] !== undefined && event["status"] !== "fired") {
      this.settled.set(event["cell_id"], event["status"] ?? "done");
      while (this.settled.size > RESULT_CAPACITY * 2) this.settled.delete(this.settled.keys().next().value as string);
    }
    for (const listener of this.listeners) listener(event);
  }

  /** The state word of `k status` / `k ls`. */
  state(): { state: string; cell?: string } {
    const lock = this.lock;
    if (lock === null) return { state: "idle" };
    if (lock.completed) return { state: "done", cell: lock.cellId };
    if (lock.timedOut) return { state: "timeout", cell: lock.cellId };
    return { state: "running", cell: lock.cellId };
  }
}

/** Formats a finished cell the way `k` prints it. */
function cellJson(result: CellResult, killed: boolean): CellJson {
  const id = result.cellId;
  switch (result.status) {
    case "timeout":
      return { cell_id: id, status: "timeout", output: "" };
    case "interrupted":
      return { cell_id: id, status: "error", output: "interrupted" };
    case "exited":
      if (killed) return { cell_id: id, status: "error", output: "killed" };
      return { cell_id: id, status: "done", output: result.output, exit_code: result.exitCode ?? undefined, exited: true };
    default:
      return {
        cell_id: id,
        status: "done",
        output: result.output,
        exit_code: typeof result.exitCode === "number" ? result.exitCode : undefined,
        cwd: result.cwd ?? undefined,
      };
  }
}

function kmStatus(result: CellResult): "done" | "timeout" | "interrupted" {
  if (result.status === "timeout") return "timeout";
  if (result.status === "interrupted") return "interrupted";
  return "done";
}

/** Leading blank lines and trailing blank lines are not part of a cell (the original stripped them too). */
function trimCode(code: string): string {
  return code.replace(/^(?:[ \t]*\r?\n)+/, "").replace(/(?:\r?\n[ \t]*)+$/, "");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<"timeout">((r) => {
      timer = setTimeout(() => r("timeout"), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A connection from a client: one request, then maybe a stream. */
class Connection {
  readonly #socket: Socket;
  #closed = false;
  readonly closeHandlers = new Set<() => void>();
  onInput: ((input: AttachInput) => void) | null = null;

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on("close", () => {
      this.#closed = true;
      for (const handler of this.closeHandlers) handler();
    });
    socket.on("error", () => socket.destroy());
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(value: Reply | StreamLine): void {
    if (!this.#closed) this.#socket.write(`${JSON.stringify(value)}\n`);
  }

  end(value?: Reply | StreamLine): void {
    if (this.#closed) return;
    if (value !== undefined) this.#socket.end(`${JSON.stringify(value)}\n`);
    else this.#socket.end();
  }
}

/** Numbers the `k attach` clients holding a terminal. */
let attachCounter = 0;

/** Everything the daemon serves. */
export class Backend {
  readonly #service = new SessionService({ manager: new SessionManager({ maxSessions: 64 }) });
  readonly #slots = new Map<string, Slot>();
  readonly #creating = new Map<string, Promise<void>>();
  /** Why a session that was answered "OK" while starting did not start after all. */
  readonly #failed = new Map<string, string>();
  readonly #newGraceMs: number;
  /** How long a new connection has to send its whole first request line. */
  readonly #firstRequestMs: number;
  readonly #version: string;
  readonly #onShutdown: () => Promise<void>;
  #connections = 0;
  #lastActivity = Date.now();

  constructor(options: { version: string; onShutdown: () => Promise<void>; newGraceMs?: number; firstRequestMs?: number }) {
    this.#version = options.version;
    this.#firstRequestMs = options.firstRequestMs ?? 30_000;
    this.#onShutdown = options.onShutdown;
    this.#newGraceMs = options.newGraceMs ?? NEW_GRACE_MS;
  }

  /** Open client connections and live sessions, for the idle exit. */
  get busy(): boolean {
    return this.#connections > 0 || this.#slots.size > 0 || this.#creating.size > 0;
  }

  /** Milliseconds since the daemon was last used. */
  get idleMs(): number {
    return this.busy ? 0 : Date.now() - this.#lastActivity;
  }

  /** Serves one client connection. */
  accept(socket: Socket): void {
    this.#connections++;
    this.#lastActivity = Date.now();
    const conn = new Connection(socket);
    conn.closeHandlers.add(() => {
      this.#connections--;
      this.#lastActivity = Date.now();
    });
    const splitter = new LineSplitter(MAX_REQUEST_LINE_CHARS);
    let started = false;
    socket.setEncoding("utf8");
    // A client that connects and never finishes its request (half-open) is dropped, so it cannot hold
    // the daemon from its idle exit; after the request, long silences are normal (watch, attach).
    socket.setTimeout(this.#firstRequestMs, () => {
      if (!started) socket.destroy();
    });
    socket.on("data", (chunk: string) => {
      let lines: string[];
      try {
        lines = splitter.push(chunk);
      } catch (error) {
        if (!(error instanceof LineTooLongError)) throw error;
        conn.end(errReply(`${error.message}; nothing was run`));
        socket.destroySoon();
        socket.pause();
        return;
      }
      for (const line of lines) {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          conn.end(errReply("malformed request: not JSON"));
          return;
        }
        if (!started) {
          started = true;
          socket.setTimeout(0);
          this.#dispatch(conn, value as Request & { v?: number }).catch((error: unknown) => {
            console.error(`${new Date().toISOString()} request failed:`, error);
            conn.end(errReply(`internal error: ${message(error)}`));
          });
        } else conn.onInput?.(value as AttachInput);
      }
    });
  }

  /** Ends every session (daemon shutdown). */
  async closeAll(): Promise<void> {
    for (const slot of this.#slots.values()) slot.killing = true;
    await this.#service.closeAll();
    for (const slot of [...this.#slots.values()]) this.#drop(slot);
  }

  async #dispatch(conn: Connection, req: Request & { v?: number }): Promise<void> {
    if (req.v !== PROTOCOL_VERSION) {
      conn.end(
        errReply(
          `this agent-tty daemon speaks protocol ${PROTOCOL_VERSION}, the client ${String(req.v)}; stop it with 'agent-tty daemon stop' and retry`,
        ),
      );
      return;
    }
    if (req.op !== "ping" && req.op !== "shutdown" && req.op !== "new") {
      const named = "session" in req ? req.session : null;
      await this.#startedSessions(req.op === "notify" || req.op === "keys" || req.op === "expect" ? null : named);
    }
    switch (req.op) {
      case "ping":
        conn.end({
          ok: true,
          exit: 0,
          result: {
            pid: process.pid,
            version: this.#version,
            protocol: PROTOCOL_VERSION,
            sessions: new Set([...this.#slots.keys(), ...this.#creating.keys()]).size,
          },
        });
        return;
      case "shutdown":
        conn.send({ ok: true, exit: 0, stdout: "OK daemon stopping\n" });
        await this.#onShutdown();
        conn.end();
        return;
      case "new":
        conn.end(await this.#new(req));
        return;
      case "run":
        await this.#run(conn, req);
        return;
      case "fire":
        conn.end(this.#fire(req));
        return;
      case "poll":
        conn.end(this.#poll(req));
        return;
      case "int":
        conn.end(await this.#int(req));
        return;
      case "kill":
        conn.end(await this.#kill(req.session));
        return;
      case "ls":
        conn.end(this.#ls());
        return;
      case "status":
        conn.end(this.#status(req));
        return;
      case "history":
        conn.end(this.#history(req));
        return;
      case "notify":
        conn.end(this.#notify(req));
        return;
      case "screen":
        conn.end(this.#withSlot(req, req.session, (slot) => ({ ok: true, exit: 0, stdout: `${slot.sh.screen()}\n` })));
        return;
      case "keys":
        conn.end(this.#keys(req));
        return;
      case "type":
        conn.end(
          this.#withSlot(req, req.session, (slot) => {
            slot.sh.type(req.text);
            return textReply("OK");
          }),
        );
        return;
      case "expect":
        conn.end(await this.#expect(req));
        return;
      case "watch":
        this.#watch(conn, req);
        return;
      case "monitor":
        this.#monitor(conn, req);
        return;
      case "attach":
        this.#attach(conn, req);
        return;
      default:
        conn.end(errReply(`unknown op ${pyRepr(String((req as { op?: unknown }).op))}`));
    }
  }

  /** The session a request is about: explicit/K_SESSION, else the only one. */
  #resolve(name: string | null): Slot | null | "none" {
    if (name !== null) return this.#slots.get(name) ?? null;
    if (this.#slots.size === 1) return this.#slots.values().next().value as Slot;
    return "none";
  }

  #withSlot(req: Request, name: string | null, fn: (slot: Slot) => Reply): Reply {
    const slot = this.#resolve(name);
    if (slot === "none") return errReply(NO_SESSION_FOUND);
    if (slot === null) {
      if (name !== null && this.#failed.has(name)) return errReply(this.#noSession(name));
      return replyWithoutSessions({ ...req, session: name } as Request) ?? errReply(noSession(String(name)));
    }
    return fn(slot);
  }

  // ── new ──────────────────────────────────────────────────────────────

  async #new(req: Extract<Request, { op: "new" }>): Promise<Reply> {
    const name = req.session;
    if (req.version !== undefined && req.version !== this.#version && this.#slots.size === 0 && this.#creating.size === 0) {
      console.error(`${new Date().toISOString()} a client of version ${req.version} came: stepping down for it`);
      void this.#onShutdown();
      return { ok: false, exit: 1, restart: true, stdout: "" };
    }
    if (this.#slots.has(name)) return textReply(`OK ${name} (alive)`);
    const pending = this.#creating.get(name);
    if (pending) {
      await pending.catch(() => undefined);
      return this.#slots.has(name) ? textReply(`OK ${name} (alive)`) : this.#new(req);
    }
    if (req.hook !== null) {
      const problem = checkHook(req.hook);
      if (problem) return errReply(problem);
    }
    this.#failed.delete(name);
    const creation = this.#create(req);
    this.#creating.set(name, creation);
    creation
      .catch((error: unknown) => {
        this.#failed.set(name, message(error));
        console.error(`${new Date().toISOString()} session '${name}' did not start: ${message(error)}`);
      })
      .finally(() => this.#creating.delete(name));
    // A program that cannot start fails at once; one that is slow to show its
    // first prompt (a heavy .bashrc) is still starting: answer now, and let the
    // next command on it wait until it is ready.
    const early = await Promise.race([
      creation.then(
        () => "ready" as const,
        (error: unknown) => error,
      ),
      new Promise<"starting">((r) => setTimeout(() => r("starting"), this.#newGraceMs).unref()),
    ]);
    if (early !== "ready" && early !== "starting") return errReply(`create failed: ${message(early)}`);
    if (req.hook !== null) return textReply(`OK ${name} prompt=${pyRepr(req.hook)}`);
    if (req.prompt !== null) return textReply(`OK ${name} prompt=${pyRepr(req.prompt)}`);
    return textReply(`OK ${name}`);
  }

  /** `no session 'x'; use k new x bash`, plus why, when it was answered "OK" but failed to start. */
  #noSession(name: string): string {
    const reason = this.#failed.get(name);
    return reason === undefined ? noSession(name) : `${noSession(name)} (it did not start: ${reason})`;
  }

  /** Waits until the sessions a request may be about have started (or failed to). */
  async #startedSessions(name: string | null): Promise<void> {
    const pending = name !== null ? [this.#creating.get(name)] : [...this.#creating.values()];
    await Promise.all(pending.map((p) => p?.catch(() => undefined)));
  }

  async #create(req: Extract<Request, { op: "new" }>): Promise<void> {
    const line = req.command ?? "bash";
    const plan = planCommand(line);
    let command: string;
    let args: string[];
    let detector: "auto" | FrameDetector = "auto";
    if (plan.argv === null) {
      // Shell syntax: let sh start it; sh's own prompt never shows, so frame by repeated Enters.
      command = "/bin/sh";
      args = ["-c", `exec ${line}`];
      detector = detectors.repeatEnter();
    } else {
      [command = "bash", ...args] = plan.argv;
    }
    if (req.hook !== null) detector = detectors.hook(req.hook);
    else if (req.prompt !== null) detector = detectors.prompt(new RegExp(`^[ \\t]*${escapeRegExp(req.prompt.trim())}[ \\t]*$`, "m"));
    const entry = await this.#service.create({
      name: req.session,
      commandLine: line,
      command,
      args,
      cwd: req.cwd,
      env: { ...req.env, ...plan.env },
      cols: DEFAULT_COLS,
      rows: DEFAULT_ROWS,
      readyTimeoutMs: READY_TIMEOUT_MS,
      detector,
      ...(req.label !== null ? { label: req.label } : {}),
      ...(req.description !== null ? { description: req.description } : {}),
    });
    const sh = entry.session;
    const slot = new Slot(req.session, entry, line, DEFAULT_COLS, DEFAULT_ROWS);
    this.#slots.set(req.session, slot);
    sh.on("exit", () => {
      // Let the active cell settle (it reports "exited") before the session disappears.
      setTimeout(() => {
        if (this.#slots.get(slot.name) === slot) {
          this.#drop(slot);
          this.#service.close(slot.name).catch(() => undefined);
        }
      }, 50);
    });
    void (async () => {
      try {
        for await (const chunk of sh.output()) slot.log.pushText(chunk);
      } catch {
        /* the session closed */
      }
      slot.log.flush();
    })();
  }

  #drop(slot: Slot): void {
    if (slot.closed) return;
    slot.closed = true;
    if (this.#slots.get(slot.name) === slot) this.#slots.delete(slot.name);
    slot.emit({ session: slot.name, status: "closed" });
    for (const listener of slot.closeListeners) listener();
  }

  // ── cells ────────────────────────────────────────────────────────────

  /** Starts a cell, or says why it cannot start (nothing is written then). */
  #start(slot: Slot, code: string, timeoutMs: number, kind: "run" | "fire"): { cellId: string; result: Promise<CellJson> } | string {
    if (slot.entry.control !== null) {
      return `human attached to '${slot.name}'; agent cells are refused until they detach (Ctrl-] in k attach)`;
    }
    const lock = slot.lock;
    if (lock !== null && !lock.completed) return `active cell '${lock.cellId}'`;
    let cell;
    try {
      cell = slot.entry.fire(trimCode(code), { timeoutMs });
    } catch (error) {
      if (error instanceof SessionBusyError) return `active cell '${error.activeCellId}'`;
      if (error instanceof AgentTtyError && error.code === "ERR_SESSION_CLOSED") return this.#noSession(slot.name);
      return message(error);
    }
    const cellId = cell.id;
    slot.lock = { cellId, kind, timedOut: false, timeoutPolled: false, completed: false };
    slot.log.mark({ kind: "fired", cellId });
    slot.emit({ cell_id: cellId, session: slot.name, status: "fired" });
    const result = cell.result.then((res) => this.#settle(slot, kind, res));
    return { cellId, result };
  }

  #settle(slot: Slot, kind: "run" | "fire", res: CellResult): CellJson {
    const json = cellJson(res, slot.killing);
    const lock = slot.lock;
    const owns = lock !== null && lock.cellId === res.cellId;
    switch (res.status) {
      case "timeout":
        if (owns) lock.timedOut = true;
        slot.remember(res.cellId, json);
        break;
      case "interrupted":
        if (owns) slot.lock = null;
        slot.remember(res.cellId, json);
        break;
      default:
        if (owns) {
          if (kind === "run") slot.lock = null;
          else lock.completed = true;
        }
        if (kind === "fire") slot.remember(res.cellId, json);
    }
    const status = kmStatus(res);
    slot.log.mark({ kind: "end", status, exitCode: res.exitCode });
    slot.emit({ cell_id: res.cellId, session: slot.name, status });
    return json;
  }

  async #run(conn: Connection, req: Extract<Request, { op: "run" }>): Promise<void> {
    const slot = this.#resolve(req.session);
    if (slot === "none") return conn.end(errReply(NO_SESSION_FOUND));
    if (slot === null) return conn.end(cellErrorReply(this.#noSession(req.session ?? ""), req.json));
    const started = this.#start(slot, req.code, req.timeoutMs, "run");
    if (typeof started === "string") return conn.end(cellErrorReply(started, req.json));
    // A client that goes away (Ctrl-C, a killed tool call) interrupts its cell, as the original did.
    const onGone = (): void => {
      if (slot.lock?.cellId === started.cellId && !slot.lock.timedOut) void this.#interrupt(slot);
    };
    conn.closeHandlers.add(onGone);
    const json = await started.result;
    conn.closeHandlers.delete(onGone);
    const failed = json.status === "error";
    if (req.json) conn.end({ ok: !failed, exit: failed ? 1 : 0, stdout: `${pyJson(json)}\n`, result: json });
    else conn.end({ ok: !failed, exit: failed ? 1 : 0, stdout: `${String(json["output"] ?? "")}\n`, result: json });
  }

  #fire(req: Extract<Request, { op: "fire" }>): Reply {
    const slot = this.#resolve(req.session);
    if (slot === "none") return errReply(NO_SESSION_FOUND);
    if (slot === null) return jsonReply({ status: "error", output: this.#noSession(req.session ?? "") }, 1);
    const started = this.#start(slot, req.code, req.timeoutMs, "fire");
    if (typeof started === "string") return jsonReply({ status: "error", output: started }, 1);
    return jsonReply({ cell_id: started.cellId, status: "fired" });
  }

  #poll(req: Extract<Request, { op: "poll" }>): Reply {
    const slot = this.#resolve(req.session);
    if (slot === "none") return errReply(NO_SESSION_FOUND);
    if (slot === null) return jsonReply({ status: "error", output: this.#noSession(req.session ?? "") }, 1);
    let cellId = req.cellId;
    if (cellId === null) {
      if (slot.lock === null) return jsonReply({ status: "error", output: `no active cell on '${slot.name}'` }, 1);
      cellId = slot.lock.cellId;
    }
    if (!CELL_ID.test(cellId)) return jsonReply({ status: "error", output: "invalid cell_id" }, 1);
    const lock = slot.lock;
    const owns = lock !== null && lock.cellId === cellId;
    const stored = slot.results.get(cellId);
    if (stored !== undefined) {
      if (stored.status === "timeout") {
        if (owns && lock.timeoutPolled) return jsonReply({ cell_id: cellId, status: "timeout", output: "use k int or k kill" }, 1);
        if (owns) lock.timeoutPolled = true;
        return jsonReply(stored);
      }
      // Reading a final result consumes it, and frees the lock it held.
      if (owns) slot.lock = null;
      slot.results.delete(cellId);
      return jsonReply(stored);
    }
    if (!owns) return jsonReply({ cell_id: cellId, status: "error", output: "unknown cell" }, 1);
    if (lock.completed) {
      slot.lock = null;
      return jsonReply({ cell_id: cellId, status: "error", output: "result missing" }, 1);
    }
    if (lock.timedOut) return jsonReply({ cell_id: cellId, status: "timeout", output: "use k int or k kill" }, 1);
    const waiting = slot.sh.activity === "awaiting_input" ? true : undefined;
    return jsonReply({ cell_id: cellId, status: "running", awaiting_input: waiting });
  }

  /** Ctrl-C; the cell holding the lock ends "interrupted" and the lock is released. */
  async #interrupt(slot: Slot): Promise<boolean> {
    const lock = slot.lock;
    if (lock?.completed) {
      slot.lock = null;
      return true;
    }
    let ok = true;
    try {
      ok = (await withTimeout(slot.entry.interrupt(), INTERRUPT_WAIT_MS)) !== "timeout";
    } catch (error) {
      if (!(error instanceof AgentTtyError && error.code === "ERR_SESSION_CLOSED")) ok = false;
    }
    if (!ok) return false;
    if (lock !== null && slot.lock === lock) {
      slot.lock = null;
      slot.remember(lock.cellId, { cell_id: lock.cellId, status: "error", output: "interrupted" });
      if (slot.settled.get(lock.cellId) !== "interrupted") {
        slot.log.mark({ kind: "end", status: "interrupted" });
        slot.emit({ cell_id: lock.cellId, session: slot.name, status: "interrupted" });
      }
    } else if (lock !== null) {
      slot.remember(lock.cellId, { cell_id: lock.cellId, status: "error", output: "interrupted" });
    }
    return true;
  }

  async #int(req: Extract<Request, { op: "int" }>): Promise<Reply> {
    const slot = this.#resolve(req.session);
    if (slot === "none") return errReply(NO_SESSION_FOUND);
    if (slot === null) return errReply(this.#noSession(req.session ?? ""));
    return (await this.#interrupt(slot)) ? textReply("OK") : errReply("interrupt failed; use k kill");
  }

  async #kill(name: string): Promise<Reply> {
    const slot = this.#slots.get(name);
    if (slot !== undefined) {
      slot.killing = true;
      try {
        await this.#service.close(name);
      } catch {
        await slot.sh.close().catch(() => undefined);
      }
      this.#drop(slot);
    }
    return textReply(`OK killed ${name}`);
  }

  // ── views ────────────────────────────────────────────────────────────

  #ls(): Reply {
    if (this.#slots.size === 0) return textReply("no sessions", 0, []);
    const rows: string[] = [];
    const result: Record<string, PyValue>[] = [];
    for (const slot of this.#slots.values()) {
      const { state, cell } = slot.state();
      const shown = state === "running" && slot.sh.activity === "awaiting_input" ? "awaiting_input" : state;
      const label = slot.sh.label;
      let row = `${slot.name} state=${shown}`;
      if (cell !== undefined) row += ` cell=${cell}`;
      row += ` cmd=${pyRepr(slot.command)}`;
      if (label) row += ` label=${pyRepr(label)}`;
      if (slot.attached > 0) row += " attached=human";
      rows.push(row);
      result.push({ name: slot.name, state: shown, cell: cell ?? null, command: slot.command, label: label ?? null, pid: slot.sh.pid ?? null, attached: slot.attached > 0 });
    }
    return { ok: true, exit: 0, stdout: `${rows.join("\n")}\n`, result };
  }

  #status(req: Extract<Request, { op: "status" }>): Reply {
    return this.#withSlot(req, req.session, (slot) => {
      const s = slot.name;
      const { state, cell } = slot.state();
      const head = `OK ${s} pipe=ok state=${state}`;
      switch (state) {
        case "idle":
          return textReply(`${head} next='k run ${s} <code>'`);
        case "done":
          return textReply(`${head} cell=${cell} next='k poll ${s} ${cell}'`);
        case "timeout":
          return textReply(`${head} cell=${cell} next='k int ${s} or k kill ${s}'`);
        default:
          return textReply(`${head} cell=${cell} next='k poll ${s} ${cell} or k int ${s}'`);
      }
    });
  }

  #history(req: Extract<Request, { op: "history" }>): Reply {
    return this.#withSlot(req, req.session, (slot) => {
      const lines = slot.log.tail(req.n * 5).map((entry) => formatEntry(entry, req.color));
      return { ok: true, exit: 0, stdout: lines.length > 0 ? `${lines.join("\n")}\n` : "" };
    });
  }

  #notify(req: Extract<Request, { op: "notify" }>): Reply {
    let name = req.session;
    let words = req.words;
    if (words.length >= 2 && this.#slots.has(words[0] ?? "")) {
      name = words[0] ?? null;
      words = words.slice(1);
    }
    const text = words.join(" ");
    return this.#withSlot(req, name, (slot) => {
      slot.log.mark({ kind: "notify", from: req.from, message: text });
      slot.emit({ session: slot.name, status: "notify", from: req.from, message: text });
      return textReply(`OK notified: ${text}`);
    });
  }

  #keys(req: Extract<Request, { op: "keys" }>): Reply {
    let name = req.session;
    let keys = req.words;
    if (keys.length >= 2 && this.#slots.has(keys[0] ?? "")) {
      name = keys[0] ?? null;
      keys = keys.slice(1);
    }
    return this.#withSlot(req, name, (slot) => {
      try {
        slot.sh.press(...keys);
      } catch (error) {
        return errReply(message(error));
      }
      return textReply("OK");
    });
  }

  async #expect(req: Extract<Request, { op: "expect" }>): Promise<Reply> {
    const [first, second] = req.words;
    const name = second !== undefined ? (first ?? null) : req.session;
    const source = (second ?? first) ?? "";
    const slot = this.#resolve(name);
    if (slot === "none") return errReply(NO_SESSION_FOUND);
    if (slot === null) return errReply(this.#noSession(name ?? ""));
    let pattern: RegExp;
    try {
      const literal = /^\/(.*)\/([dgimsuy]*)$/s.exec(source);
      pattern = literal ? new RegExp(literal[1] ?? "", (literal[2] ?? "").replace("g", "")) : new RegExp(source);
    } catch (error) {
      return errReply(`invalid pattern: ${message(error)}`);
    }
    const done = (match: string, groups: string[], before: string): Reply =>
      req.json
        ? jsonReply({ status: "matched", match, groups, before })
        : textReply(`OK ${match}`, 0, { match, groups, before });
    // A prompt already waiting counts too: the last line of a cell that awaits
    // input (trailing spaces kept), or else the last line of the screen. They
    // are checked now and while waiting (a prompt printed just before this
    // call is seen once the program is found waiting for input).
    const waitingLine = (): { match: string; groups: string[]; before: string } | null => {
      const waiting = slot.sh.poll();
      const candidates: string[] = [];
      if (waiting?.status === "awaiting_input" && waiting.output !== undefined) candidates.push(waiting.output.split("\n").pop() ?? "");
      candidates.push(slot.sh.screen().split("\n").filter((l) => l.trim() !== "").pop() ?? "");
      for (const line of candidates) {
        const found = pattern.exec(line);
        if (found) return { match: found[0], groups: found.slice(1).map((g) => g ?? ""), before: line.slice(0, found.index) };
      }
      return null;
    };
    const now = waitingLine();
    if (now) return done(now.match, now.groups, now.before);
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const onPrompt = new Promise<{ match: string; groups: string[]; before: string }>((resolveSeen) => {
      timer = setInterval(() => {
        const seen = waitingLine();
        if (seen) resolveSeen(seen);
      }, 100);
    });
    try {
      const found = await Promise.race([slot.sh.expect(pattern, { timeoutMs: req.timeoutMs, signal: abort.signal }), onPrompt]);
      return done(found.match, found.groups.map((g) => g ?? ""), found.before);
    } catch (error) {
      if (error instanceof CellTimeoutError) {
        const recent = error.recentOutput.slice(-300);
        const seconds = Math.round(req.timeoutMs / 1000);
        if (req.json) return jsonReply({ status: "timeout", output: recent }, 1);
        return errReply(`timeout after ${seconds} s waiting for ${pattern}; last output: ${pyRepr(recent.split("\n").slice(-3).join("\n"))}`);
      }
      return errReply(message(error));
    } finally {
      clearInterval(timer);
      abort.abort();
    }
  }

  // ── streams ──────────────────────────────────────────────────────────

  #watch(conn: Connection, req: Extract<Request, { op: "watch" }>): void {
    const slot = this.#resolve(req.session);
    if (slot === "none") return conn.end(errReply(NO_SESSION_FOUND));
    if (slot === null) return conn.end(errReply(this.#noSession(req.session ?? "")));
    const header = `watching ${slot.name} (ctrl-c to stop)`;
    conn.send({ ok: true, exit: 0, stdout: `${req.color ? `\x1b[2m${header}\x1b[0m` : header}\n\n` });
    const unsubscribe = slot.log.subscribe((entry) => conn.send({ line: formatEntry(entry, req.color) }));
    const onClose = (): void => conn.end({ end: true, exit: 0, stdout: `[session ${slot.name} ended]\n` });
    slot.closeListeners.add(onClose);
    conn.closeHandlers.add(() => {
      unsubscribe();
      slot.closeListeners.delete(onClose);
    });
  }

  #monitor(conn: Connection, req: Extract<Request, { op: "monitor" }>): void {
    const slot = this.#slots.get(req.session);
    const line = (event: KmEvent): string => pyJson({ ...event, ts: pyTimestamp() });
    if (slot === undefined) {
      conn.end({ ok: false, exit: 1, stdout: `${line({ session: req.session, status: "error", message: `no session '${req.session}'` })}\n` });
      return;
    }
    conn.send({ ok: true, exit: 0 });
    const isEnd = (status: string | undefined): boolean => status === "done" || status === "timeout" || status === "interrupted";
    let finished = false;
    const listener = (event: KmEvent): void => {
      if (finished) return;
      const cell = event["cell_id"];
      if (cell !== undefined && req.cellId !== null && cell !== req.cellId) return;
      if (event["status"] === "closed") {
        finished = true;
        conn.send({ line: line(event) });
        conn.end({ end: true, exit: 1 });
        return;
      }
      conn.send({ line: line(event) });
      if (req.once && cell !== undefined && isEnd(event["status"])) {
        finished = true;
        conn.end({ end: true, exit: 0 });
      }
    };
    // A cell that already ended before the monitor came reports at once (no lost wake-up).
    const past = req.cellId !== null ? slot.settled.get(req.cellId) : undefined;
    if (req.cellId !== null && past !== undefined) listener({ cell_id: req.cellId, session: slot.name, status: past });
    if (finished) return;
    slot.listeners.add(listener);
    conn.closeHandlers.add(() => slot.listeners.delete(listener));
  }

  #attach(conn: Connection, req: Extract<Request, { op: "attach" }>): void {
    const slot = this.#resolve(req.session);
    if (slot === "none") return conn.end(errReply(NO_SESSION_FOUND));
    if (slot === null) return conn.end(errReply(this.#noSession(req.session ?? "")));
    const sh = slot.sh;
    if (req.cols > 0 && req.rows > 0) {
      // Checked before the session counts as attached: a refused size must not leave it held.
      try {
        sh.resize(req.cols, req.rows);
      } catch (error) {
        return conn.end(errReply(error instanceof Error ? error.message : String(error)));
      }
    }
    slot.attached++;
    const holderId = `k-attach-${++attachCounter}`;
    slot.entry.take(holderId, "k attach");
    conn.send({ ok: true, exit: 0, stdout: `[attached to ${slot.name}; Ctrl-] detaches]\r\n` });
    // Blank rows under the text are not replayed: the cursor stays where the text ends, as before.
    conn.send({ data: `\x1b[H\x1b[2J${sh.screen().replace(/\n+$/, "").replace(/\n/g, "\r\n")}` });
    const onData = (data: string): void => {
      if (data) conn.send({ data });
    };
    sh.on("data", onData);
    let detached = false;
    const detach = (): void => {
      if (detached) return;
      detached = true;
      sh.off("data", onData);
      slot.closeListeners.delete(onEnd);
      slot.attached--;
      slot.entry.release(holderId);
      if (slot.attached === 0 && !slot.closed) {
        try {
          sh.resize(slot.cols, slot.rows);
        } catch {
          /* closed meanwhile */
        }
      }
    };
    const onEnd = (): void => {
      detach();
      conn.end({ end: true, exit: 0, stdout: `\r\n[session ${slot.name} ended]\r\n` });
    };
    slot.closeListeners.add(onEnd);
    conn.closeHandlers.add(detach);
    conn.onInput = (input) => {
      if (detached) return;
      try {
        if ("input" in input && typeof input.input === "string") slot.entry.humanWrite(holderId, input.input);
        else if ("resize" in input && Array.isArray(input.resize)) sh.resize(input.resize[0], input.resize[1]);
        else if ("detach" in input) {
          detach();
          conn.end({ end: true, exit: 0, stdout: `\r\n[detached from ${slot.name}]\r\n` });
        }
      } catch {
        /* the session closed: onEnd reports it */
      }
    };
  }
}

/** The original's hook checks: the path must be a readable, executable file. */
function checkHook(path: string): string | null {
  try {
    if (!statSync(path).isFile()) return `hook not found: ${path}`;
  } catch {
    return `hook not found: ${path}`;
  }
  try {
    accessSync(path, fsConstants.R_OK);
  } catch {
    return `hook not readable: ${path}`;
  }
  try {
    accessSync(path, fsConstants.X_OK);
  } catch {
    return `hook not executable: ${path}`;
  }
  return null;
}
