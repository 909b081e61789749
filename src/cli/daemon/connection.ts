/**
 * One client connection to the daemon: it sends one request line, then
 * (during `k attach`) input lines; the daemon answers a reply, then maybe
 * stream lines. Reads lines with a cap, drops a client that never finishes
 * its first request, and hands the request to `onRequest`.
 */
import type { Socket } from "node:net";
import { errReply } from "../shared/messages.js";
import { LineSplitter, LineTooLongError, type AttachInput, type Reply, type StreamLine } from "../shared/protocol.js";

/** What a request handler answers through: the reply, then stream lines. */
export interface Channel {
  /** True once the client went away. */
  readonly closed: boolean;
  /** Called once when the client goes away (or the daemon ends the connection). */
  readonly closeHandlers: Set<() => void>;
  /** Lines the client sends after its request (`k attach`'s input). */
  onInput: ((input: AttachInput) => void) | null;
  /** Sends one line and keeps the connection open. */
  send(value: Reply | StreamLine): void;
  /** Sends a last line (if any) and ends the connection. */
  end(value?: Reply | StreamLine): void;
}

/** A {@link Channel} over a client's socket. */
export class Connection implements Channel {
  readonly #socket: Socket;
  #closed = false;
  /** Called once when the client goes away (or the daemon ends the connection). */
  readonly closeHandlers = new Set<() => void>();
  /** Lines the client sends after its request (`k attach`'s input). */
  onInput: ((input: AttachInput) => void) | null = null;

  /** @param socket - the client's socket; an error on it closes it. */
  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on("close", () => {
      this.#closed = true;
      for (const handler of this.closeHandlers) handler();
    });
    socket.on("error", () => socket.destroy());
  }

  /** True once the client went away. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends one line and keeps the connection open. */
  send(value: Reply | StreamLine): void {
    if (!this.#closed) this.#socket.write(`${JSON.stringify(value)}\n`);
  }

  /** Sends a last line (if any) and ends the connection. */
  end(value?: Reply | StreamLine): void {
    if (this.#closed) return;
    if (value !== undefined) this.#socket.end(`${JSON.stringify(value)}\n`);
    else this.#socket.end();
  }
}

/** How {@link serveConnection} reads a client. */
export interface ConnectionOptions {
  /** Longest line a client may send (a cell's code rides in its request). */
  maxLineChars: number;
  /** How long the client has to send its whole first request line. */
  firstRequestMs: number;
  /** Handles the first line (the parsed request); later lines go to the channel's `onInput`. */
  onRequest(channel: Channel, request: unknown): void;
}

/** Reads a client's lines from `socket`; returns its channel. */
export function serveConnection(socket: Socket, options: ConnectionOptions): Connection {
  const conn = new Connection(socket);
  const splitter = new LineSplitter(options.maxLineChars);
  let started = false;
  let refused = false;
  socket.setEncoding("utf8");
  // A client that connects and never finishes its request (half-open) is dropped, so it cannot hold
  // the daemon from its idle exit; after the request, long silences are normal (watch, attach).
  socket.setTimeout(options.firstRequestMs, () => {
    if (!started) socket.destroy();
  });
  socket.on("data", (chunk: string) => {
    // What a refused client still sends is read and dropped: closing with it unread would reset the
    // connection, and a client still writing would lose the reply that says why.
    if (refused) return;
    let lines: string[];
    try {
      lines = splitter.push(chunk);
    } catch (error) {
      if (!(error instanceof LineTooLongError)) throw error;
      refused = true;
      conn.end(errReply(`${error.message}; nothing was run`));
      // A client that never stops sending is cut off after the time a first request has.
      const cutOff = setTimeout(() => socket.destroy(), options.firstRequestMs);
      socket.once("close", () => clearTimeout(cutOff));
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
        options.onRequest(conn, value);
      } else conn.onInput?.(value as AttachInput);
    }
  });
  return conn;
}
