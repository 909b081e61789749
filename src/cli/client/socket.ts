/**
 * The client side of the daemon socket: connect, start the daemon on demand,
 * send one request, read its replies. Node built-ins only (start-up time).
 */
import { connect as netConnect, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { checkHome, closeQuietly, daemonAlive, daemonPaths, openLog, readLockPid, type DaemonPaths } from "../shared/paths.js";
import { LineSplitter, PROTOCOL_VERSION, type Reply, type Request, type StreamLine } from "../shared/protocol.js";

/** How long a client waits for a daemon it started to accept connections. */
const START_TIMEOUT_MS = 15_000;

/** Raised when the daemon cannot be reached or started; its message is for the user. */
export class DaemonError extends Error {}

function tryConnect(path: string): Promise<Socket | null> {
  return new Promise((resolveConnect, reject) => {
    const socket = netConnect(path);
    const onError = (error: NodeJS.ErrnoException): void => {
      socket.destroy();
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED" || error.code === "ENOTSOCK") resolveConnect(null);
      else reject(new DaemonError(`cannot connect to the agent-tty daemon at ${path}: ${error.message}`));
    };
    socket.once("error", onError);
    socket.once("connect", () => {
      socket.off("error", onError);
      resolveConnect(socket);
    });
  });
}

/**
 * Connects to the user's daemon. With `start`, starts it when none runs
 * (detached: it outlives this process) and waits until it accepts; without,
 * resolves `null` when none runs.
 */
export async function connectDaemon(start: boolean, paths: DaemonPaths = daemonPaths()): Promise<Socket | null> {
  try {
    checkHome(paths, start);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !start) return null;
    throw new DaemonError((error as Error).message);
  }
  const first = await tryConnect(paths.socket);
  if (first !== null || !start) return first;

  // A daemon that holds the lock is starting: wait for it instead of racing it.
  const holder = readLockPid(paths.lock);
  let exited: { code: number | null; signal: string | null } | null = null;
  if (holder === null || !daemonAlive(holder)) {
    const { spawn } = await import("node:child_process");
    const logFd = openLog(paths);
    try {
      const child = spawn(process.execPath, [fileURLToPath(new URL("../daemon.js", import.meta.url))], {
        detached: true,
        stdio: ["ignore", logFd, logFd],
        cwd: "/",
        env: process.env,
      });
      child.once("exit", (code, signal) => {
        exited = { code, signal };
      });
      child.once("error", (error) => {
        exited = { code: null, signal: error.message };
      });
      child.unref();
    } finally {
      closeQuietly(logFd);
    }
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  let delay = 5;
  for (;;) {
    const socket = await tryConnect(paths.socket);
    if (socket !== null) return socket;
    const failed = exited as { code: number | null; signal: string | null } | null;
    if (failed !== null && failed.code !== 0) {
      throw new DaemonError(`the agent-tty daemon did not start (${failed.signal ?? `exit ${failed.code}`}); ${await logTail(paths)}`);
    }
    if (Date.now() > deadline) {
      throw new DaemonError(`the agent-tty daemon did not accept connections within ${START_TIMEOUT_MS / 1000} s; ${await logTail(paths)}`);
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 50);
  }
}

async function logTail(paths: DaemonPaths): Promise<string> {
  try {
    const { readFileSync } = await import("node:fs");
    const lines = readFileSync(paths.log, "utf8").trimEnd().split("\n").slice(-40);
    // A crash ends with a stack and "Node.js vX": the error line says more.
    const error = [...lines].reverse().find((line) => /^\w*Error\b|agent-tty daemon\[/.test(line));
    const shown = (error ?? lines.at(-1) ?? "").trim();
    return shown ? `its log ${paths.log} says: ${shown}` : `see ${paths.log}`;
  } catch {
    return `see ${paths.log}`;
  }
}

/** A connection carrying one request: the first reply, then stream lines. */
export class Conversation {
  readonly socket: Socket;
  readonly #splitter = new LineSplitter();
  readonly #queue: unknown[] = [];
  #waiting: ((value: unknown) => void) | null = null;
  #closed = false;

  constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      for (const line of this.#splitter.push(chunk)) {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          continue;
        }
        this.#deliver(value);
      }
    });
    const onEnd = (): void => {
      this.#closed = true;
      this.#deliver(null);
    };
    socket.on("close", onEnd);
    socket.on("error", onEnd);
  }

  #deliver(value: unknown): void {
    if (this.#waiting) {
      const resolveNext = this.#waiting;
      this.#waiting = null;
      resolveNext(value);
    } else this.#queue.push(value);
  }

  send(message: object): void {
    if (!this.#closed) this.socket.write(`${JSON.stringify(message)}\n`);
  }

  /** The next line from the daemon, or null once the connection closed. */
  next(): Promise<unknown> {
    if (this.#queue.length > 0) return Promise.resolve(this.#queue.shift());
    if (this.#closed) return Promise.resolve(null);
    return new Promise((r) => {
      this.#waiting = r;
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Sends `request` on a new conversation and returns it with the first reply. */
export async function request(socket: Socket, body: Request): Promise<{ conversation: Conversation; reply: Reply }> {
  const conversation = new Conversation(socket);
  conversation.send({ v: PROTOCOL_VERSION, ...body });
  const reply = (await conversation.next()) as Reply | null;
  if (reply === null || typeof reply !== "object") {
    conversation.close();
    throw new DaemonError("the agent-tty daemon closed the connection without answering; see its log");
  }
  return { conversation, reply };
}

/** Reads stream lines until the end line or the connection closes. */
export async function* streamLines(conversation: Conversation): AsyncGenerator<StreamLine> {
  for (;;) {
    const value = (await conversation.next()) as StreamLine | null;
    if (value === null) return;
    yield value;
    if ("end" in value) return;
  }
}
