/**
 * Everything the daemon serves, as one object for its main loop: accepts
 * client connections ({@link serveConnection}), routes each request through
 * the dispatch table ({@link dispatch}) with the shared
 * {@link DaemonContext}, and tells when the daemon is idle.
 */
import type { Socket } from "node:net";
import { serveConnection } from "./connection.js";
import { DaemonContext } from "./context.js";
import { dispatch } from "./dispatch.js";

/** Longest request line a client may send (a cell's code rides in it). */
const MAX_REQUEST_LINE_CHARS = 16 << 20;
/** How long a new connection has to send its whole first request line, by default. */
const FIRST_REQUEST_MS = 30_000;

/** Options of a {@link Backend}. */
export interface BackendOptions {
  /** This package's version (`agent-tty daemon status` shows it; a client of another version may restart an idle daemon). */
  readonly version: string;
  /** Stops the daemon (`agent-tty daemon stop`, or a newer client's `k new`). */
  readonly onShutdown: () => Promise<void>;
  /** How long `k new` waits for the first prompt before answering "OK". @default 100 */
  readonly newGraceMs?: number;
  /** How long a new connection has to send its whole first request line. @default 30000 */
  readonly firstRequestMs?: number;
}

/** The daemon's sessions and the connections to them. */
export class Backend {
  readonly #ctx: DaemonContext;
  readonly #firstRequestMs: number;
  #connections = 0;
  #lastActivity = Date.now();

  constructor(options: BackendOptions) {
    this.#ctx = new DaemonContext({
      version: options.version,
      shutdown: options.onShutdown,
      ...(options.newGraceMs !== undefined ? { newGraceMs: options.newGraceMs } : {}),
    });
    this.#firstRequestMs = options.firstRequestMs ?? FIRST_REQUEST_MS;
  }

  /** Open client connections and live sessions, for the idle exit. */
  get busy(): boolean {
    return this.#connections > 0 || this.#ctx.slots.size > 0 || this.#ctx.creating.size > 0;
  }

  /** Milliseconds since the daemon was last used. */
  get idleMs(): number {
    return this.busy ? 0 : Date.now() - this.#lastActivity;
  }

  /** Serves one client connection. */
  accept(socket: Socket): void {
    this.#connections++;
    this.#lastActivity = Date.now();
    const channel = serveConnection(socket, {
      maxLineChars: MAX_REQUEST_LINE_CHARS,
      firstRequestMs: this.#firstRequestMs,
      onRequest: (conn, request) => void dispatch(this.#ctx, conn, request),
    });
    channel.closeHandlers.add(() => {
      this.#connections--;
      this.#lastActivity = Date.now();
    });
  }

  /** Ends every session (daemon shutdown). */
  closeAll(): Promise<void> {
    return this.#ctx.closeAll();
  }
}
