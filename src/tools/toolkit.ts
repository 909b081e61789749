import { AgentTtyError, SessionBusyError, type Cell, type CellResult, type Session, type SessionManager } from "../index.js";
import { CappedMap } from "../internal/capped-map.js";
import { normalizeToolOptions, type NormalizedToolOptions, type TerminalToolOptions } from "./options.js";
import type { OpenedOutcome, RunningOutcome, SessionSummary, ToolErrorOutcome, ToolOutcome } from "./outcome.js";
import { renderOutcome } from "./render.js";
import {
  TERMINAL_TOOL_NAMES,
  terminalToolAnnotations,
  terminalToolDescriptions,
  terminalToolSchemas,
  type TerminalToolAnnotations,
  type TerminalToolInputs,
  type TerminalToolName,
} from "./schemas.js";

/** Per-call context an adapter passes to an executor. */
export interface ToolCallContext {
  /** The framework's abort signal: aborting interrupts the cell this call waits on. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Called with the output so far while a cell runs (at most every
   * `intervalMs`), for adapters that stream preliminary results.
   */
  readonly onProgress?: ((progress: RunningOutcome) => void) | undefined;
}

/** One terminal tool: what adapters register with their framework. */
export interface TerminalToolDefinition<N extends TerminalToolName = TerminalToolName> {
  readonly name: N;
  /** What the tool does, worded for a model. */
  readonly description: string;
  /** The zod input schema (`zod/v4`). */
  readonly inputSchema: (typeof terminalToolSchemas)[N];
  /** Host hints: read-only, destructive… */
  readonly annotations: TerminalToolAnnotations;
  /** Runs the tool; never rejects (failures come back as `kind: "error"`). */
  execute(input: unknown, context?: ToolCallContext): Promise<ToolOutcome>;
}

/** Live output of the cells the tools started, kept until the core's own record has them. */
interface Tracked {
  readonly session: string;
  readonly cell: Cell;
  output: string;
  omitted: number;
  listeners: Set<() => void>;
}

const LIVE_KEEP_CHARS = 1 << 20;
const TRACKED_CELLS = 50;
const PROGRESS_INTERVAL_MS = 250;
const KEY_NAME =
  /^((ctrl|alt|shift|meta)\+)*(enter|return|tab|esc|escape|backspace|delete|del|up|down|left|right|home|end|pageup|pagedown|insert|space|f[1-9]|f1[0-2]|.)$/i;
const KEY_NAMES_HINT =
  "enter, tab, esc, backspace, delete, up, down, left, right, home, end, pageup, pagedown, insert, space, f1…f12, ctrl+X, alt+X, shift+tab or a single character";

/**
 * The terminal operations, defined once over a `SessionManager`: schemas,
 * executors that return data ({@link ToolOutcome}) and a renderer that
 * words it for a model. The AI SDK, LangChain and MCP adapters, and the
 * HTTP server, are thin layers over this.
 *
 * @example
 * ```ts
 * import { createTerminalToolkit } from "agent-tty/tools";
 * const kit = createTerminalToolkit({ maxOutputChars: 8000 });
 * const opened = await kit.execute("terminal_open", { command: "python3" });
 * const ran = await kit.execute("terminal_run", { session: "python3", code: "2 + 2" });
 * console.log(kit.render(ran)); // "status: done | exit: n/a | … \n4"
 * await kit.close();
 * ```
 */
export class TerminalToolkit {
  readonly #options: NormalizedToolOptions;
  readonly #tracked = new CappedMap<string, Tracked>(TRACKED_CELLS);
  readonly #lastCwd = new Map<string, string>();
  readonly #opened = new Set<string>();

  constructor(options: TerminalToolOptions = {}) {
    this.#options = normalizeToolOptions(options);
  }

  /** The manager holding the sessions these tools open. */
  get manager(): SessionManager {
    return this.#options.manager;
  }

  /** The normalized options (defaults applied). */
  get options(): NormalizedToolOptions {
    return this.#options;
  }

  /** Every tool, in the order they are offered. */
  get tools(): TerminalToolDefinition[] {
    return TERMINAL_TOOL_NAMES.map((name) => this.tool(name));
  }

  /** One tool's definition. */
  tool<N extends TerminalToolName>(name: N): TerminalToolDefinition<N> {
    return {
      name,
      description: terminalToolDescriptions[name],
      inputSchema: terminalToolSchemas[name],
      annotations: terminalToolAnnotations[name],
      execute: (input, context) => this.execute(name, input, context),
    };
  }

  /** The text a model reads for an outcome (see {@link renderOutcome}). */
  render(outcome: ToolOutcome): string {
    return renderOutcome(outcome, { maxOutputChars: this.#options.maxOutputChars });
  }

  /**
   * Runs one tool on raw input: validates it with the tool's schema, applies
   * the policy, and returns the outcome. Never rejects.
   */
  async execute(name: string, input: unknown, context: ToolCallContext = {}): Promise<ToolOutcome> {
    if (!(TERMINAL_TOOL_NAMES as readonly string[]).includes(name)) {
      return {
        kind: "error",
        tool: name,
        code: "ERR_UNKNOWN_TOOL",
        message: `there is no tool named '${name}'; the tools are ${TERMINAL_TOOL_NAMES.join(", ")}`,
      };
    }
    const tool = name as TerminalToolName;
    const parsed = terminalToolSchemas[tool].safeParse(input ?? {});
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (issue) => `${issue.path.length > 0 ? `\`${issue.path.join(".")}\`` : "the input"}: ${issue.message}`,
      );
      return { kind: "error", tool, code: "ERR_INVALID_ARGUMENT", message: `invalid input for ${tool}: ${problems.join("; ")}` };
    }
    try {
      return await this.#dispatch(tool, parsed.data, context);
    } catch (error) {
      return this.#errorOutcome(tool, error, (parsed.data as { session?: string }).session);
    }
  }

  /** Closes the sessions these tools opened (every session when the toolkit made the manager). */
  async close(): Promise<void> {
    const { manager, ownsManager } = this.#options;
    if (ownsManager) await manager.closeAll();
    else await Promise.all([...this.#opened].map((name) => manager.close(name)));
    this.#opened.clear();
    this.#tracked.clear();
  }

  #dispatch(tool: TerminalToolName, input: TerminalToolInputs[TerminalToolName], context: ToolCallContext): Promise<ToolOutcome> {
    switch (tool) {
      case "terminal_open":
        return this.#open(input as TerminalToolInputs["terminal_open"]);
      case "terminal_run":
        return this.#run(input as TerminalToolInputs["terminal_run"], context);
      case "terminal_send":
        return this.#send(input as TerminalToolInputs["terminal_send"], context);
      case "terminal_wait":
        return this.#wait(input as TerminalToolInputs["terminal_wait"], context);
      case "terminal_screen":
        return Promise.resolve(this.#screen(this.#session(tool, (input as { session: string }).session)));
      case "terminal_interrupt":
        return this.#interrupt(input as TerminalToolInputs["terminal_interrupt"]);
      case "terminal_output":
        return Promise.resolve(this.#output(input as TerminalToolInputs["terminal_output"]));
      case "terminal_list":
        return Promise.resolve(this.#list());
      case "terminal_close":
        return this.#close(input as TerminalToolInputs["terminal_close"]);
    }
  }

  // ── operations ─────────────────────────────────────────────────────

  async #open(input: TerminalToolInputs["terminal_open"]): Promise<ToolOutcome> {
    const { defaults, manager, maxSessions } = this.#options;
    const command = input.command ?? defaults.command ?? "bash";
    const args = input.args ?? (input.command === undefined ? (defaults.args ?? []) : []);
    if (!this.#options.allowCommand(command, args)) {
      return {
        kind: "error",
        tool: "terminal_open",
        code: "ERR_REFUSED",
        message: `starting '${command}' is not allowed here (allowCommands)`,
      };
    }
    if (manager.size >= maxSessions) {
      return {
        kind: "error",
        tool: "terminal_open",
        code: "ERR_TOO_MANY_SESSIONS",
        message: `${manager.size} sessions are open, the most allowed here (maxSessions ${maxSessions}); close one with terminal_close or reuse one`,
        openSessions: manager.list().map((info) => info.name),
      };
    }
    const name = input.name ?? this.#freeName(command);
    const cwd = input.cwd ?? defaults.cwd ?? process.cwd();
    const session = await manager.create(name, {
      ...defaults,
      command,
      args,
      cwd,
      ...(input.label === undefined ? {} : { label: input.label }),
      ...(input.description === undefined ? {} : { description: input.description }),
    });
    this.#lastCwd.set(name, cwd);
    this.#opened.add(name);
    const opened: OpenedOutcome = { kind: "opened", session: name, command, args, cwd, pid: session.pid };
    return opened;
  }

  async #run(input: TerminalToolInputs["terminal_run"], context: ToolCallContext): Promise<ToolOutcome> {
    const session = this.#session("terminal_run", input.session);
    const refusal = await this.#policy(input.session, input.code);
    if (refusal !== undefined)
      return { kind: "error", tool: "terminal_run", code: "ERR_REFUSED", session: input.session, message: refusal };
    const cell = session.fire(input.code, { timeoutMs: this.#options.cellTimeoutMs });
    this.#track(input.session, cell);
    return this.#settle(session, input.session, input.untilInput ?? true, input.timeoutMs, context);
  }

  async #send(input: TerminalToolInputs["terminal_send"], context: ToolCallContext): Promise<ToolOutcome> {
    const session = this.#session("terminal_send", input.session);
    if (input.text === undefined && (input.keys === undefined || input.keys.length === 0) && input.wait === false) {
      return {
        kind: "error",
        tool: "terminal_send",
        code: "ERR_INVALID_ARGUMENT",
        session: input.session,
        message: "nothing to send: give `text`, `keys`, or leave `wait` on to wait for the running cell",
      };
    }
    const active = session.activeCell;
    const typed = `${input.text ?? ""}${(input.keys ?? []).some((key) => key.toLowerCase() === "enter") ? "\n" : ""}`;
    if (active === null && /[\r\n]/.test(typed)) {
      // A line typed at an idle prompt runs like a cell: the same policy applies.
      const refusal = await this.#policy(input.session, typed.replace(/[\r\n]+$/, ""));
      if (refusal !== undefined)
        return { kind: "error", tool: "terminal_send", code: "ERR_REFUSED", session: input.session, message: refusal };
    }
    const badKey = (input.keys ?? []).find((key) => !KEY_NAME.test(key));
    if (badKey !== undefined) {
      // Checked before anything is typed, so a bad key name writes nothing.
      return {
        kind: "error",
        tool: "terminal_send",
        code: "ERR_INVALID_ARGUMENT",
        session: input.session,
        message: `unknown key name ${JSON.stringify(badKey)}; use ${KEY_NAMES_HINT}`,
      };
    }
    if (input.text !== undefined && input.text !== "") session.type(input.text);
    if (input.keys !== undefined && input.keys.length > 0) session.press(...input.keys);
    const sent = { ...(input.text === undefined ? {} : { text: input.text }), ...(input.keys === undefined ? {} : { keys: input.keys }) };
    if (input.wait === false) return { ...this.#screen(session), sent };
    const running = session.activeCell;
    if (running === null) {
      await this.#quiet(session, Math.min(input.timeoutMs ?? 2_000, 2_000));
      return { ...this.#screen(session), sent };
    }
    return this.#settle(session, input.session, true, input.timeoutMs, context);
  }

  async #wait(input: TerminalToolInputs["terminal_wait"], context: ToolCallContext): Promise<ToolOutcome> {
    const session = this.#session("terminal_wait", input.session);
    const running = session.activeCell;
    if (running === null) {
      const last = await session.wait();
      return { kind: "cell", session: input.session, result: this.#remember(input.session, last) };
    }
    return this.#settle(session, input.session, true, input.timeoutMs, context);
  }

  #screen(session: Session): ToolOutcome & { kind: "screen" } {
    return {
      kind: "screen",
      session: session.name,
      screen: session.screen(),
      state: session.state,
      activity: session.activity,
      activeCell: session.activeCell,
    };
  }

  async #interrupt(input: TerminalToolInputs["terminal_interrupt"]): Promise<ToolOutcome> {
    const session = this.#session("terminal_interrupt", input.session);
    const result = await session.interrupt(input.force === true ? { force: true } : {});
    if (result === undefined) return { kind: "nothing_to_interrupt", session: input.session };
    return { kind: "cell", session: input.session, result: this.#remember(input.session, result) };
  }

  #output(input: TerminalToolInputs["terminal_output"]): ToolOutcome {
    const session = this.#session("terminal_output", input.session);
    const snapshot = session.poll(input.cellId);
    const tracked = this.#tracked.get(input.cellId);
    const full = snapshot?.output ?? tracked?.output ?? "";
    const offset = Math.min(input.offset ?? 0, full.length);
    const text = full.slice(offset, offset + (input.maxChars ?? this.#options.maxOutputChars));
    return {
      kind: "output",
      session: input.session,
      cellId: input.cellId,
      status: snapshot?.status ?? "running",
      text,
      offset,
      totalChars: full.length,
    };
  }

  #list(): ToolOutcome {
    const sessions: SessionSummary[] = this.#options.manager.list().map((info) => ({
      name: info.name,
      command: info.command,
      label: info.label,
      description: info.description,
      state: info.state,
      activity: info.activity,
      activeCell: info.activeCell,
      createdAt: info.createdAt,
    }));
    return { kind: "sessions", sessions, maxSessions: this.#options.maxSessions };
  }

  async #close(input: TerminalToolInputs["terminal_close"]): Promise<ToolOutcome> {
    const existed = await this.#options.manager.close(input.session);
    for (const [id, tracked] of this.#tracked) if (tracked.session === input.session) this.#tracked.delete(id);
    this.#lastCwd.delete(input.session);
    this.#opened.delete(input.session);
    return { kind: "closed", session: input.session, existed };
  }

  // ── helpers ────────────────────────────────────────────────────────

  /** Waits for the active cell's next settle point, the soft wait, or an abort. */
  async #settle(
    session: Session,
    name: string,
    untilInput: boolean,
    timeoutMs: number | undefined,
    context: ToolCallContext,
  ): Promise<ToolOutcome> {
    const waitMs = Math.min(timeoutMs ?? this.#options.waitMs, this.#options.maxWaitMs);
    const started = performance.now();
    const active = session.activeCell;
    const settled = session.wait({ untilInput });
    settled.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let stopProgress: (() => void) | undefined;
    const soft = new Promise<"soft">((resolve) => {
      timer = setTimeout(() => resolve("soft"), waitMs);
    });
    const aborted = new Promise<"abort">((resolve) => {
      if (context.signal === undefined) return;
      if (context.signal.aborted) resolve("abort");
      onAbort = () => resolve("abort");
      context.signal.addEventListener("abort", onAbort, { once: true });
    });
    if (context.onProgress !== undefined && active !== null) stopProgress = this.#progress(name, active, context.onProgress);
    try {
      const first = await Promise.race([settled, soft, aborted]);
      if (first === "abort") {
        const result = (await session.interrupt()) ?? (await settled);
        return { kind: "cell", session: name, result: this.#remember(name, result) };
      }
      if (first === "soft") {
        if (active === null) return { kind: "cell", session: name, result: this.#remember(name, await settled) };
        return this.#runningOutcome(name, active, performance.now() - started);
      }
      return { kind: "cell", session: name, result: this.#remember(name, first) };
    } finally {
      clearTimeout(timer);
      stopProgress?.();
      if (onAbort !== undefined) context.signal?.removeEventListener("abort", onAbort);
    }
  }

  #runningOutcome(name: string, active: { id: string; code: string; startedAt: Date }, waitedMs: number): RunningOutcome {
    // A cell the tools did not start has no live record: the screen is the best "output so far".
    const tracked = this.#tracked.get(active.id);
    const output = tracked !== undefined ? tracked.output : (this.#options.manager.get(name)?.screen() ?? "");
    return {
      kind: "running",
      session: name,
      cellId: active.id,
      code: active.code,
      output,
      elapsedMs: Date.now() - active.startedAt.getTime(),
      waitedMs,
    };
  }

  #progress(
    name: string,
    active: { id: string; code: string; startedAt: Date },
    onProgress: (progress: RunningOutcome) => void,
  ): () => void {
    const tracked = this.#tracked.get(active.id);
    if (tracked === undefined) return () => {};
    let last = 0;
    let pending: NodeJS.Timeout | undefined;
    const started = performance.now();
    const emit = (): void => {
      pending = undefined;
      last = performance.now();
      onProgress(this.#runningOutcome(name, active, last - started));
    };
    const listener = (): void => {
      if (pending !== undefined) return;
      const since = performance.now() - last;
      if (since >= PROGRESS_INTERVAL_MS) emit();
      else pending = setTimeout(emit, PROGRESS_INTERVAL_MS - since);
    };
    tracked.listeners.add(listener);
    return () => {
      tracked.listeners.delete(listener);
      clearTimeout(pending);
    };
  }

  /** Keeps a cell's live output (bounded) so a soft-wait result and `terminal_output` can show it. */
  #track(session: string, cell: Cell): void {
    const tracked: Tracked = { session, cell, output: "", omitted: 0, listeners: new Set() };
    this.#tracked.set(cell.id, tracked);
    void (async () => {
      try {
        for await (const chunk of cell) {
          tracked.output += chunk;
          if (tracked.output.length > LIVE_KEEP_CHARS) {
            const drop = tracked.output.length - LIVE_KEEP_CHARS;
            tracked.output = tracked.output.slice(drop);
            tracked.omitted += drop;
          }
          for (const listener of tracked.listeners) listener();
        }
      } catch {
        /* the cell could not start: fire() already reported it */
      }
    })();
  }

  #remember(name: string, result: CellResult): CellResult {
    if (result.cwd !== undefined) this.#lastCwd.set(name, result.cwd);
    return result;
  }

  async #policy(session: string, code: string): Promise<string | undefined> {
    const hook = this.#options.beforeRun;
    if (hook === undefined) return undefined;
    const reason = await hook(session, code);
    if (reason === undefined || reason === null) return undefined;
    return typeof reason === "string" && reason !== "" ? reason : "refused by the host's policy (beforeRun)";
  }

  /** Waits until the terminal has been quiet a moment (after typing at an idle prompt). */
  async #quiet(session: Session, deadlineMs: number): Promise<void> {
    const until = performance.now() + deadlineMs;
    while (performance.now() < until && session.state !== "closed" && session.state !== "exited") {
      if (session.quietMs >= 150) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  #session(tool: TerminalToolName, name: string): Session {
    let session: Session | undefined;
    try {
      session = this.#options.manager.get(name);
    } catch {
      session = undefined;
    }
    if (session === undefined) throw new UnknownSession(tool, name);
    return session;
  }

  #freeName(command: string): string {
    const base = (command.split("/").pop() ?? "term").replace(/[^A-Za-z0-9_.-]/g, "") || "term";
    const safe = /^\.+$/.test(base) ? "term" : base.replace(/\.\./g, ".");
    const taken = new Set(this.#options.manager.list().map((info) => info.name));
    if (!taken.has(safe)) return safe;
    for (let n = 2; ; n++) if (!taken.has(`${safe}-${n}`)) return `${safe}-${n}`;
  }

  #errorOutcome(tool: TerminalToolName, error: unknown, sessionName: string | undefined): ToolErrorOutcome {
    const session = sessionName === undefined ? {} : { session: sessionName };
    if (error instanceof UnknownSession) {
      return {
        kind: "error",
        tool,
        code: "ERR_UNKNOWN_SESSION",
        message: `there is no open session named '${error.sessionName}'`,
        ...session,
        openSessions: this.#options.manager.list().map((info) => info.name),
      };
    }
    if (error instanceof SessionBusyError) {
      const holder = sessionName === undefined ? undefined : this.#options.manager.get(sessionName);
      const cellActivity =
        holder?.state === "timed_out" ? "timed_out" : holder?.activity === "awaiting_input" ? "awaiting_input" : "running";
      return {
        kind: "error",
        tool,
        code: "ERR_SESSION_BUSY",
        message: error.message,
        ...session,
        cellId: error.activeCellId,
        cellActivity,
      };
    }
    if (error instanceof AgentTtyError) return { kind: "error", tool, code: error.code, message: error.message, ...session };
    const message = error instanceof Error ? error.message : String(error);
    return { kind: "error", tool, code: "ERR_INTERNAL", message: `unexpected failure: ${message}`, ...session };
  }
}

class UnknownSession extends Error {
  constructor(
    readonly tool: string,
    readonly sessionName: string,
  ) {
    super(`no session '${sessionName}'`);
  }
}

/** Creates a {@link TerminalToolkit}: the terminal tools over one `SessionManager`. */
export function createTerminalToolkit(options: TerminalToolOptions = {}): TerminalToolkit {
  return new TerminalToolkit(options);
}
