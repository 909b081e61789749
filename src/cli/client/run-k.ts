/**
 * `k`: parse the command line, ask the daemon, print its answer. Imports
 * node built-ins and the small protocol modules only: every `k` call is a
 * new process, so start-up time is the cost that matters.
 */
import { readFileSync } from "node:fs";
import { parseArgs, type ArgContext } from "./args.js";
import { daemonPaths, pidAlive, readLockPid } from "../shared/paths.js";
import { DETACH_BYTE, PROTOCOL_VERSION, type Reply, type Request } from "../shared/protocol.js";
import { packageVersion, versionLine } from "../shared/version.js";
import { connectDaemon, DaemonError, request, streamLines, type Conversation } from "./socket.js";

function out(text: string): void {
  if (text) process.stdout.write(text);
}

function parentCommand(): string {
  try {
    return readFileSync(`/proc/${process.ppid}/comm`, "utf8").trim() || "?";
  } catch {
    return "?";
  }
}

function context(): ArgContext {
  return {
    env: process.env,
    cwd: process.cwd(),
    from: () => `${parentCommand()}@k:${process.pid}`,
    color: process.stdout.isTTY === true && !process.env["NO_COLOR"],
    size: () => [process.stdout.columns || 80, process.stdout.rows || 24],
  };
}

/** Runs `k` with `argv` (arguments after the script); resolves the exit status. */
export async function runK(argv: readonly string[]): Promise<number> {
  const plan = parseArgs(argv, context());
  switch (plan.kind) {
    case "print":
      out(plan.stdout);
      return plan.exit;
    case "version":
      out(`${versionLine()}\n`);
      return 0;
    case "daemon":
      return daemonCommand(plan.action);
    case "request":
      try {
        return await sendRequest(plan.request);
      } catch (error) {
        if (error instanceof DaemonError) {
          out(`ERR ${error.message}\n`);
          return 1;
        }
        throw error;
      }
  }
}

async function sendRequest(body: Request, retried = false): Promise<number> {
  if (body.op === "new") body.version = packageVersion();
  const socket = await connectDaemon(body.op === "new");
  if (socket === null) {
    // Loaded only here: the common path (a daemon runs) does not need it.
    const { replyWithoutSessions } = await import("../shared/messages.js");
    const reply = replyWithoutSessions(body) as Reply;
    out(reply.stdout ?? "");
    return reply.exit;
  }
  const { conversation, reply } = await request(socket, body);
  if (reply.restart === true && !retried) {
    // A daemon of another version, with no session, steps down: wait for it to go, then start ours.
    while ((await conversation.next()) !== null);
    const paths = daemonPaths();
    const deadline = Date.now() + 10_000;
    for (let pid = readLockPid(paths.lock); pid !== null && pidAlive(pid) && Date.now() < deadline; pid = readLockPid(paths.lock)) {
      await new Promise((r) => setTimeout(r, 10));
    }
    return sendRequest(body, true);
  }
  if (!reply.ok || (body.op !== "watch" && body.op !== "attach")) {
    conversation.close();
    out(reply.stdout ?? "");
    return reply.exit;
  }
  return body.op === "watch" ? watch(conversation, reply) : attach(conversation, reply);
}

async function watch(conversation: Conversation, reply: Reply): Promise<number> {
  out(reply.stdout ?? "");
  const stop = (): void => {
    out(process.stdout.isTTY ? "\n\x1b[2mstopped\x1b[0m\n" : "\nstopped\n");
    conversation.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  for await (const line of streamLines(conversation)) {
    if ("line" in line) out(`${line.line}\n`);
    else if ("end" in line) {
      out(line.stdout ?? "");
      return line.exit;
    }
  }
  return 0;
}

async function attach(conversation: Conversation, reply: Reply): Promise<number> {
  const stdin = process.stdin;
  const raw = stdin.isTTY === true;
  const restore = (): void => {
    if (raw) stdin.setRawMode(false);
    stdin.pause();
  };
  process.stderr.write(`${reply.stdout ?? ""}`);
  if (raw) stdin.setRawMode(true);
  stdin.resume();
  stdin.on("data", (chunk: Buffer) => {
    const at = chunk.indexOf(DETACH_BYTE);
    if (at >= 0) {
      if (at > 0) conversation.send({ input: chunk.subarray(0, at).toString("utf8") });
      conversation.send({ detach: true });
      return;
    }
    conversation.send({ input: chunk.toString("utf8") });
  });
  stdin.on("end", () => conversation.send({ detach: true }));
  const onResize = (): void => conversation.send({ resize: [process.stdout.columns || 80, process.stdout.rows || 24] });
  process.stdout.on("resize", onResize);
  try {
    for await (const line of streamLines(conversation)) {
      if ("data" in line) process.stdout.write(line.data);
      else if ("end" in line) {
        restore();
        process.stderr.write(line.stdout ?? "");
        return line.exit;
      }
    }
    restore();
    process.stderr.write("\r\n[agent-tty: connection to the daemon lost]\r\n");
    return 1;
  } finally {
    process.stdout.off("resize", onResize);
    conversation.close();
  }
}

/** `k daemon status|stop|start` and `agent-tty daemon ...`. */
export async function daemonCommand(action: string): Promise<number> {
  const paths = daemonPaths();
  try {
    if (action === "start") {
      const socket = await connectDaemon(true, paths);
      socket?.destroy();
      return daemonCommand("status");
    }
    if (action === "run") {
      const { runDaemon } = await import("../daemon/main.js");
      return await runDaemon();
    }
    const socket = await connectDaemon(false, paths);
    if (action === "status") {
      if (socket === null) {
        out(`agent-tty daemon not running (home ${paths.home})\n`);
        return 1;
      }
      const { reply } = await request(socket, { op: "ping" });
      socket.destroy();
      const info = (reply.result ?? {}) as { pid?: number; version?: string; sessions?: number; protocol?: number };
      out(
        `OK agent-tty daemon pid=${info.pid} sessions=${info.sessions} version=${info.version} protocol=${info.protocol ?? PROTOCOL_VERSION} home=${paths.home}\n`,
      );
      return 0;
    }
    if (action === "stop") {
      if (socket === null) {
        out("OK daemon not running\n");
        return 0;
      }
      const pid = readLockPid(paths.lock);
      const { conversation } = await request(socket, { op: "shutdown" });
      // The daemon closes the connection once it has ended its sessions.
      while ((await conversation.next()) !== null);
      const deadline = Date.now() + 10_000;
      while (pid !== null && pidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      out(`OK daemon stopped\n`);
      return 0;
    }
    out(`usage: agent-tty daemon status|stop|start|run\n`);
    return 1;
  } catch (error) {
    if (error instanceof DaemonError) {
      out(`ERR ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
