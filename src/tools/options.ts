import { AgentTtyError, SessionManager, type SessionOptions } from "../index.js";

/**
 * Options shared by every terminal tool factory (`agent-tty/tools`,
 * `agent-tty/ai`, `agent-tty/langchain`, `agent-tty/mcp`).
 */
export interface TerminalToolOptions {
  /**
   * Where sessions live. Sessions the tools open are closed by
   * `manager.closeAll()` (or the tool set's `close()`).
   * @default a new `SessionManager({ maxSessions })`
   */
  readonly manager?: SessionManager;
  /**
   * Options for every spawned session; the model's `terminal_open` fields
   * (command, args, cwd, label, description) go over them.
   * @default {}
   */
  readonly defaults?: Omit<SessionOptions, "name">;
  /**
   * Which programs `terminal_open` may start: names (matched against the
   * command and its basename, e.g. `["bash", "python3"]`) or a predicate.
   * @default every program
   */
  readonly allowCommands?: readonly string[] | ((command: string, args: readonly string[]) => boolean);
  /**
   * Most sessions open at once through these tools.
   * @default 8
   */
  readonly maxSessions?: number;
  /**
   * Characters of output a model reads per result; longer output keeps its
   * start and end and says what was cut (`terminal_output` reads the rest).
   * @default 16000
   */
  readonly maxOutputChars?: number;
  /**
   * Called before each cell (and before text typed at an idle prompt, which
   * runs too). Returning a string refuses it with that reason, which the
   * model reads: the place for approval or policy. May be async.
   */
  readonly beforeRun?: (session: string, code: string) => string | undefined | Promise<string | undefined>;
  /**
   * The soft wait: how long `terminal_run`, `terminal_send` and
   * `terminal_wait` wait before returning the output so far with the cell
   * still running. The model may ask for another value up to `maxWaitMs`.
   * @default 30000
   */
  readonly waitMs?: number;
  /**
   * Most a model may ask a call to wait.
   * @default 600000
   */
  readonly maxWaitMs?: number;
  /**
   * The hard limit of one cell: past it the cell settles `"timeout"` (the
   * command may still run; the session stays held until interrupted).
   * @default defaults.timeoutMs, else 1800000 (30 minutes)
   */
  readonly cellTimeoutMs?: number;
}

/** {@link TerminalToolOptions} with every default applied. */
export interface NormalizedToolOptions {
  readonly manager: SessionManager;
  readonly ownsManager: boolean;
  readonly defaults: Omit<SessionOptions, "name">;
  readonly allowCommand: (command: string, args: readonly string[]) => boolean;
  readonly maxSessions: number;
  readonly maxOutputChars: number;
  readonly beforeRun: ((session: string, code: string) => string | undefined | Promise<string | undefined>) | undefined;
  readonly waitMs: number;
  readonly maxWaitMs: number;
  readonly cellTimeoutMs: number;
}

/** The defaults of {@link TerminalToolOptions}. */
export const TOOL_DEFAULTS = Object.freeze({
  maxSessions: 8,
  maxOutputChars: 16_000,
  waitMs: 30_000,
  maxWaitMs: 600_000,
  cellTimeoutMs: 1_800_000,
});

const KNOWN = [
  "manager",
  "defaults",
  "allowCommands",
  "maxSessions",
  "maxOutputChars",
  "beforeRun",
  "waitMs",
  "maxWaitMs",
  "cellTimeoutMs",
];

function positiveInt(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
    throw new AgentTtyError(
      "ERR_INVALID_ARGUMENT",
      `Expected \`${name}\` to be a positive integer, got \`${String(value)}\` (${typeof value})`,
    );
  }
  return value;
}

/** Validates tool options and applies the defaults; throws `ERR_INVALID_ARGUMENT`. */
export function normalizeToolOptions(options: TerminalToolOptions = {}): NormalizedToolOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new AgentTtyError("ERR_INVALID_ARGUMENT", "Expected the terminal tool options to be an object");
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key))
      throw new AgentTtyError("ERR_INVALID_ARGUMENT", `Unknown terminal tool option \`${key}\`; known: ${KNOWN.join(", ")}`);
  }
  const maxSessions = positiveInt(options.maxSessions, "maxSessions", TOOL_DEFAULTS.maxSessions);
  if (options.manager !== undefined && !(options.manager instanceof SessionManager)) {
    throw new AgentTtyError("ERR_INVALID_ARGUMENT", "Expected `manager` to be a SessionManager from agent-tty");
  }
  const allow = options.allowCommands;
  let allowCommand: (command: string, args: readonly string[]) => boolean;
  if (allow === undefined) allowCommand = () => true;
  else if (typeof allow === "function") allowCommand = allow;
  else if (Array.isArray(allow) && allow.every((item) => typeof item === "string")) {
    const names = new Set(allow);
    allowCommand = (command) => names.has(command) || names.has(command.split("/").pop() ?? command);
  } else
    throw new AgentTtyError(
      "ERR_INVALID_ARGUMENT",
      "Expected `allowCommands` to be an array of command names or a function (command, args) => boolean",
    );
  if (options.beforeRun !== undefined && typeof options.beforeRun !== "function") {
    throw new AgentTtyError("ERR_INVALID_ARGUMENT", "Expected `beforeRun` to be a function (session, code) => string | undefined");
  }
  const defaults = options.defaults ?? {};
  if (typeof defaults !== "object" || defaults === null || "name" in defaults) {
    throw new AgentTtyError("ERR_INVALID_ARGUMENT", "Expected `defaults` to be session options without `name`");
  }
  const maxWaitMs = positiveInt(options.maxWaitMs, "maxWaitMs", TOOL_DEFAULTS.maxWaitMs);
  return {
    manager: options.manager ?? new SessionManager({ maxSessions }),
    ownsManager: options.manager === undefined,
    defaults,
    allowCommand,
    maxSessions,
    maxOutputChars: positiveInt(options.maxOutputChars, "maxOutputChars", TOOL_DEFAULTS.maxOutputChars),
    beforeRun: options.beforeRun,
    waitMs: Math.min(positiveInt(options.waitMs, "waitMs", TOOL_DEFAULTS.waitMs), maxWaitMs),
    maxWaitMs,
    cellTimeoutMs: positiveInt(options.cellTimeoutMs, "cellTimeoutMs", defaults.timeoutMs ?? TOOL_DEFAULTS.cellTimeoutMs),
  };
}
