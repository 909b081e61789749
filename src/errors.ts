/**
 * Stable machine-readable codes carried by every {@link AgentTtyError}.
 */
export type AgentTtyErrorCode =
  | "ERR_INVALID_ARGUMENT"
  | "ERR_SESSION_BUSY"
  | "ERR_SESSION_CLOSED"
  | "ERR_SPAWN"
  | "ERR_NOT_READY"
  | "ERR_CELL_TIMEOUT"
  | "ERR_UNKNOWN_CELL"
  | "ERR_SESSION_EXISTS"
  | "ERR_TOO_MANY_SESSIONS"
  | "ERR_NO_SESSION"
  | "ERR_HUMAN_CONTROL"
  | "ERR_NEEDS_RECOVERY"
  | "ERR_RECORD";

/** Options accepted by every {@link AgentTtyError} constructor. */
export interface AgentTtyErrorOptions {
  /** The underlying error, if any. */
  readonly cause?: unknown;
}

/**
 * Base class of every error agent-tty throws. Catch this one class to handle
 * them all; branch on {@link AgentTtyError.code} for the specific case.
 *
 * @example
 * ```ts
 * try { await sh.run("ls") } catch (error) {
 *   if (error instanceof AgentTtyError && error.code === "ERR_SESSION_BUSY") …
 * }
 * ```
 */
export class AgentTtyError extends Error {
  /** Stable code naming the kind of failure. */
  readonly code: AgentTtyErrorCode;

  constructor(code: AgentTtyErrorCode, message: string, options: AgentTtyErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A cell was refused because another cell holds the session's lock. Nothing
 * was written to the terminal.
 */
export class SessionBusyError extends AgentTtyError {
  /** The id of the cell that holds the lock. */
  readonly activeCellId: string;

  constructor(session: string, activeCellId: string, timedOut: boolean) {
    const hint = timedOut
      ? "it timed out and may still be running; call interrupt() to stop it or wait for its prompt"
      : "wait for it, call interrupt(), or pass { queue: true }";
    super("ERR_SESSION_BUSY", `session '${session}' is busy with cell ${activeCellId}; ${hint}`);
    this.activeCellId = activeCellId;
  }
}

/** The session was closed, or its program exited; start a new session. */
export class SessionClosedError extends AgentTtyError {
  constructor(session: string, detail = "is closed") {
    super("ERR_SESSION_CLOSED", `session '${session}' ${detail}; spawn a new session`);
  }
}

/**
 * A wait (such as `expect()` or spawn's ready wait) ran out of time.
 * {@link CellTimeoutError.recentOutput} holds what the program printed last,
 * to show what it was doing instead.
 */
export class CellTimeoutError extends AgentTtyError {
  /** The last part of the clean output seen before the deadline. */
  readonly recentOutput: string;

  constructor(message: string, recentOutput: string) {
    super("ERR_CELL_TIMEOUT", message);
    this.recentOutput = recentOutput;
  }
}

/** The program could not be started, or did not become ready. */
export class SpawnError extends AgentTtyError {
  /** The command that was started. */
  readonly command: string;
  /** What the program printed before it failed, if anything. */
  readonly output: string;

  constructor(code: "ERR_SPAWN" | "ERR_NOT_READY", command: string, message: string, output = "", options: AgentTtyErrorOptions = {}) {
    super(code, message, options);
    this.command = command;
    this.output = output;
  }
}

/**
 * A person has taken the session over (`session.takeOver()`: the web page's
 * "take over", `k attach`): cells are refused, nothing written, until they
 * give it back.
 */
export class HumanControlError extends AgentTtyError {
  /** The session held. */
  readonly session: string;

  constructor(session: string) {
    super("ERR_HUMAN_CONTROL", `a person has taken over session '${session}'; cells are refused until they give it back`);
    this.session = session;
  }
}

/** Throws an `ERR_INVALID_ARGUMENT` error worded the usual way. */
export function invalidArgument(message: string): AgentTtyError {
  return new AgentTtyError("ERR_INVALID_ARGUMENT", message);
}

/** Describes a value for an error message: `` `-1` (number) ``. */
export function describeValue(value: unknown): string {
  let shown: string;
  try {
    shown = typeof value === "string" ? JSON.stringify(value) : String(value);
  } catch {
    shown = Object.prototype.toString.call(value);
  }
  if (shown.length > 60) shown = `${shown.slice(0, 57)}...`;
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  return `\`${shown}\` (${kind})`;
}
