import type { AgentTtyErrorCode, CellResult, SessionActivity, SessionState } from "../index.js";
import type { TerminalToolName } from "./schemas.js";

/**
 * What a terminal tool call came to, as data. Executors return it; the
 * renderer turns it into the text a model reads; transports (HTTP, MCP
 * `structuredContent`, LangChain artifacts) can send it as JSON.
 * A discriminated union on `kind`.
 */
export type ToolOutcome =
  | OpenedOutcome
  | CellOutcome
  | RunningOutcome
  | ScreenOutcome
  | IdleInterruptOutcome
  | OutputOutcome
  | SessionsOutcome
  | ClosedOutcome
  | ToolErrorOutcome;

/** `terminal_open` started a session. */
export interface OpenedOutcome {
  readonly kind: "opened";
  readonly session: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly pid: number | undefined;
}

/** A cell reached a settle point: a final status, or `awaiting_input`. */
export interface CellOutcome {
  readonly kind: "cell";
  readonly session: string;
  readonly result: CellResult;
}

/** The soft wait passed while the cell kept running: the output so far. */
export interface RunningOutcome {
  readonly kind: "running";
  readonly session: string;
  readonly cellId: string;
  readonly code: string;
  /** The cell's clean output so far. */
  readonly output: string;
  /** Milliseconds since the cell started. */
  readonly elapsedMs: number;
  /** How long this call waited. */
  readonly waitedMs: number;
}

/** The screen of a session (`terminal_screen`, or `terminal_send` without a running cell). */
export interface ScreenOutcome {
  readonly kind: "screen";
  readonly session: string;
  readonly screen: string;
  readonly state: SessionState;
  readonly activity: SessionActivity;
  readonly activeCell: { readonly id: string; readonly code: string; readonly startedAt: Date } | null;
  /** What `terminal_send` typed, when it did. */
  readonly sent?: { readonly text?: string; readonly keys?: readonly string[] };
}

/** `terminal_interrupt` found no cell running. */
export interface IdleInterruptOutcome {
  readonly kind: "nothing_to_interrupt";
  readonly session: string;
}

/** A slice of a cell's full output (`terminal_output`). */
export interface OutputOutcome {
  readonly kind: "output";
  readonly session: string;
  readonly cellId: string;
  /** `"running"`, `"awaiting_input"` or the final status. */
  readonly status: string;
  readonly text: string;
  readonly offset: number;
  readonly totalChars: number;
}

/** One row of `terminal_list`. */
export interface SessionSummary {
  readonly name: string;
  readonly command: string;
  readonly label: string | undefined;
  readonly description: string | undefined;
  readonly state: SessionState;
  readonly activity: SessionActivity;
  readonly activeCell: { readonly id: string; readonly code: string; readonly startedAt: Date } | null;
  readonly createdAt: Date;
}

/** The open sessions (`terminal_list`). */
export interface SessionsOutcome {
  readonly kind: "sessions";
  readonly sessions: readonly SessionSummary[];
  readonly maxSessions: number;
}

/** `terminal_close` ended a session (or found none). */
export interface ClosedOutcome {
  readonly kind: "closed";
  readonly session: string;
  readonly existed: boolean;
}

/**
 * Codes of a {@link ToolErrorOutcome}: the core's `AgentTtyErrorCode`s, plus
 * `ERR_REFUSED` (policy said no), `ERR_UNKNOWN_SESSION`, `ERR_UNKNOWN_TOOL`
 * and `ERR_INTERNAL` (an unexpected failure, worded from its message).
 */
export type ToolErrorCode = AgentTtyErrorCode | "ERR_REFUSED" | "ERR_UNKNOWN_SESSION" | "ERR_UNKNOWN_TOOL" | "ERR_INTERNAL";

/** A call that could not happen, as data; the renderer words it as a sentence. */
export interface ToolErrorOutcome {
  readonly kind: "error";
  readonly tool: TerminalToolName | string;
  readonly code: ToolErrorCode;
  readonly message: string;
  readonly session?: string;
  /** The cell holding a busy session. */
  readonly cellId?: string;
  /** Whether that cell is waiting for input, timed out or running. */
  readonly cellActivity?: "running" | "awaiting_input" | "timed_out";
  /** Open session names, for an unknown session. */
  readonly openSessions?: readonly string[];
}
