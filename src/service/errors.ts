/**
 * The errors of the service layer and how every transport reports an error:
 * one status per `AgentTtyError` code, one JSON shape.
 */
import { AgentTtyError, HumanControlError, SessionBusyError } from "../index.js";

export { HumanControlError };

/** No session has that name (HTTP 404). */
export class NoSessionError extends AgentTtyError {
  /** The name that was asked for. */
  readonly session: string;

  constructor(session: string) {
    super("ERR_NO_SESSION", `no session '${session}'; list them with GET /api/sessions or create it first`);
    this.session = session;
  }
}

/**
 * A cell of this session timed out (a TUI turn that never signalled): the
 * program's state is unknown, so cells are refused until `interrupt` (or the
 * session is closed and created again).
 */
export class NeedsRecoveryError extends AgentTtyError {
  /** The session concerned. */
  readonly session: string;
  /** The cell that timed out. */
  readonly cellId: string;

  constructor(session: string, cellId: string) {
    super(
      "ERR_NEEDS_RECOVERY",
      `session '${session}' needs recovery: cell ${cellId} timed out and the program may still be busy; interrupt it (POST /api/sessions/${session}/interrupt) or close and recreate it`,
    );
    this.session = session;
    this.cellId = cellId;
  }
}

/** The JSON body of every error answer: `{ error: { code, message, ... } }`. */
export interface ErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly activeCellId?: string;
    readonly session?: string;
    readonly cellId?: string;
  };
}

/** The HTTP status for an error: 400 bad input, 404 unknown, 409 conflicts, 500 otherwise. */
export function httpStatus(error: unknown): 400 | 404 | 409 | 500 | 503 {
  if (!(error instanceof AgentTtyError)) return 500;
  switch (error.code) {
    case "ERR_INVALID_ARGUMENT":
    case "ERR_SPAWN":
    case "ERR_NOT_READY":
      return 400;
    case "ERR_NO_SESSION":
    case "ERR_UNKNOWN_CELL":
      return 404;
    case "ERR_SESSION_BUSY":
    case "ERR_SESSION_EXISTS":
    case "ERR_SESSION_CLOSED":
    case "ERR_HUMAN_CONTROL":
    case "ERR_NEEDS_RECOVERY":
    case "ERR_CELL_TIMEOUT":
      return 409;
    case "ERR_TOO_MANY_SESSIONS":
      return 503;
    default:
      return 500;
  }
}

/** The error as JSON: its code, message and what a caller needs to act (the busy cell). */
export function errorBody(error: unknown): ErrorBody {
  if (!(error instanceof AgentTtyError)) return { error: { code: "ERR_INTERNAL", message: "internal error; see the server's log" } };
  const extra: { activeCellId?: string; session?: string; cellId?: string } = {};
  if (error instanceof SessionBusyError) extra.activeCellId = error.activeCellId;
  if (error instanceof NoSessionError || error instanceof HumanControlError) extra.session = error.session;
  if (error instanceof NeedsRecoveryError) {
    extra.session = error.session;
    extra.cellId = error.cellId;
  }
  return { error: { code: error.code, message: error.message, ...extra } };
}
