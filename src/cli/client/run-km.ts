/**
 * `km <session> [cell_id] [-1]`: an event monitor whose every stdout line is
 * one JSON event (fired, done, timeout, interrupted, notify, closed, error),
 * for runtimes that wake an agent on a line of output. `-1` exits after the
 * first completion.
 */
import { CELL_ID, isValidSessionName } from "../shared/protocol.js";
import { pyJson, pyRepr, pyTimestamp } from "../shared/python.js";
import { versionLine } from "../shared/version.js";
import { connectDaemon, DaemonError, request, streamLines } from "./socket.js";

export const KM_USAGE = `km -- event monitor for k sessions (agent-tty)

Usage:
  km <session> [cell_id] [-1]

  session    the session to watch
  cell_id    only events of this cell (default: every cell)
  -1         exit after the first completion (done, timeout or interrupted)

Each stdout line is one JSON event:
  {"cell_id": "...", "session": "...", "status": "fired", "ts": "..."}
  {"cell_id": "...", "session": "...", "status": "done", "ts": "..."}
  {"session": "...", "status": "notify", "from": "...", "message": "...", "ts": "..."}
  {"session": "...", "status": "closed", "ts": "..."}
  {"session": "...", "status": "error", "message": "...", "ts": "..."}`;

function line(value: Record<string, string>): void {
  process.stdout.write(`${pyJson({ ...value, ts: pyTimestamp() })}\n`);
}

/** Runs `km` with `argv`; resolves the exit status. */
export async function runKm(argv: readonly string[]): Promise<number> {
  const first = argv[0];
  if (first === "--version" || first === "-V" || first === "version") {
    process.stdout.write(`${versionLine()}\n`);
    return 0;
  }
  if (first === undefined || first === "-h" || first === "--help") {
    process.stdout.write(`${KM_USAGE}\n`);
    return 0;
  }
  const session = first;
  if (!isValidSessionName(session)) {
    process.stderr.write(`km: invalid session name: ${pyRepr(session)}\n`);
    return 1;
  }
  let cellId: string | null = null;
  let once = false;
  for (const arg of argv.slice(1)) {
    if (arg === "-1") once = true;
    else if (CELL_ID.test(arg)) cellId = arg;
    else {
      process.stderr.write(`unknown arg: ${arg}\n`);
      return 1;
    }
  }
  try {
    const socket = await connectDaemon(false);
    if (socket === null) {
      line({ session, status: "error", message: `no session '${session}'` });
      return 1;
    }
    const { conversation, reply } = await request(socket, { op: "monitor", session, cellId, once });
    process.stdout.write(reply.stdout ?? "");
    if (!reply.ok) {
      conversation.close();
      return reply.exit;
    }
    const stop = (): void => {
      conversation.close();
      process.exit(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    for await (const item of streamLines(conversation)) {
      if ("line" in item) process.stdout.write(`${item.line}\n`);
      else if ("end" in item) {
        conversation.close();
        process.stdout.write(item.stdout ?? "");
        return item.exit;
      }
    }
    line({ session, status: "error", message: "the agent-tty daemon went away" });
    return 1;
  } catch (error) {
    if (error instanceof DaemonError) {
      line({ session, status: "error", message: error.message });
      return 1;
    }
    throw error;
  }
}
