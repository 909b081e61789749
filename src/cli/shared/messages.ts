/**
 * The words `k` prints, shared by the client (which answers on its own when
 * no daemon runs) and the daemon. Pure functions.
 */
import type { Reply, Request } from "./protocol.js";
import { pyJson, type PyValue } from "./python.js";

/** An error's message (or the thrown value as text), as replies quote it. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `no session 'x'; use k new x bash` */
export function noSession(session: string): string {
  return `no session '${session}'; use k new ${session} bash`;
}

/** Printed when no session was named and none could be chosen. */
export const NO_SESSION_FOUND = "no session found; use k ls or k new <session> bash";

/** A reply printing `text` (a newline is added). */
export function textReply(text: string, exit = 0, result?: unknown): Reply {
  return result === undefined ? { ok: exit === 0, exit, stdout: `${text}\n` } : { ok: exit === 0, exit, stdout: `${text}\n`, result };
}

/** A reply printing `ERR <message>`. */
export function errReply(message: string, exit = 1): Reply {
  return { ok: false, exit, stdout: `ERR ${message}\n`, error: message };
}

/** A reply printing one JSON line, Python style. */
export function jsonReply(value: { [key: string]: PyValue | undefined }, exit = 0): Reply {
  return { ok: exit === 0, exit, stdout: `${pyJson(value)}\n`, result: value };
}

/** `{"status": "error", "output": ...}` (JSON) or the bare message (text mode of `k run`). */
export function cellErrorReply(output: string, json: boolean, cellId?: string): Reply {
  const value = cellId === undefined ? { status: "error", output } : { cell_id: cellId, status: "error", output };
  return json ? jsonReply(value, 1) : { ok: false, exit: 1, stdout: `${output}\n`, result: value, error: output };
}

/**
 * What the daemon answers when the session a request names does not exist
 * (or, with no name, none could be chosen): used by the client when no daemon
 * is running, so that asking about a session does not start one, and by the
 * daemon. `missing` words the unknown name (the daemon adds why a session
 * did not start). `null` for ops that need a daemon.
 */
export function replyWithoutSessions(request: Request, missing: (session: string) => string = noSession): Reply | null {
  switch (request.op) {
    case "ls":
      return textReply("no sessions");
    case "kill":
      return textReply(`OK killed ${request.session}`);
    case "run":
      return request.session === null ? errReply(NO_SESSION_FOUND) : cellErrorReply(missing(request.session), request.json);
    case "fire":
    case "poll":
      return request.session === null ? errReply(NO_SESSION_FOUND) : jsonReply({ status: "error", output: missing(request.session) }, 1);
    case "int":
    case "status":
    case "watch":
    case "history":
    case "screen":
    case "keys":
    case "type":
    case "expect":
    case "attach":
    case "notify":
      return request.session === null ? errReply(NO_SESSION_FOUND) : errReply(missing(request.session));
    case "monitor":
      return null;
    default:
      return null;
  }
}
