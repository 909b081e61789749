/**
 * `agent-tty/server`: the HTTP server and live web terminal.
 *
 * @example
 * ```ts
 * import { createServer } from "agent-tty/server";
 * const server = await createServer({ port: 0 });
 * console.log(server.url);                 // http://127.0.0.1:41234
 * await fetch(`${server.url}/api/sessions`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
 * await server.close();
 * ```
 *
 * @module
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import { AgentTtyError, SessionManager } from "../index.js";
import { SessionService } from "../service/index.js";
import { buildApp } from "./app.js";
import { Gate, isLoopbackHost } from "./auth.js";
import { serveTerminalSockets } from "./terminal-socket.js";

export {
  SessionEntry,
  SessionService,
  HumanControlError,
  NeedsRecoveryError,
  NoSessionError,
  errorBody,
  httpStatus,
} from "../service/index.js";
export type {
  CellRecord,
  ControlHolder,
  CreateInput,
  ErrorBody,
  ServiceEvent,
  SessionServiceOptions,
  SessionView,
  SignalRecord,
} from "../service/index.js";
export { generateToken, isLoopbackHost } from "./auth.js";

/** Options of {@link createServer}. */
export interface ServerOptions {
  /** Where the sessions live; sessions you create in it yourself are served too. @default a new SessionManager (closed by `close()`) */
  readonly manager?: SessionManager;
  /** The interface to listen on. Anything but loopback needs a `token`. @default "127.0.0.1" */
  readonly host?: string;
  /** The port; 0 picks a free one. @default 7681 */
  readonly port?: number;
  /** Required on every request as `Authorization: Bearer <token>` (or the login cookie). @default none (loopback only) */
  readonly token?: string;
}

/** A running server. */
export interface AgentTtyServer {
  /** Where it listens, e.g. `http://127.0.0.1:7681`. */
  readonly url: string;
  /** The token requests need, if any. */
  readonly token: string | undefined;
  /** The sessions it serves. */
  readonly manager: SessionManager;
  /** The service layer behind the routes (human control, cell records, signals). */
  readonly service: SessionService;
  /** A fresh one-time URL that logs a browser in (sets an HttpOnly cookie); the plain URL without a token. */
  loginUrl(): string;
  /** Stops listening, ends open connections and WebSockets, and closes the sessions if the manager was its own. */
  close(): Promise<void>;
}

/**
 * Starts the HTTP server: the REST API, Server-Sent Events, a WebSocket per
 * watched terminal and the live web page.
 *
 * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` for a non-loopback `host` without a `token`, a bad port or token, or a port in use.
 */
export async function createServer(options: ServerOptions = {}): Promise<AgentTtyServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 7681;
  const token = options.token;
  if (typeof host !== "string" || host === "")
    throw new AgentTtyError("ERR_INVALID_ARGUMENT", `Expected \`host\` to be a non-empty string`);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new AgentTtyError("ERR_INVALID_ARGUMENT", `Expected \`port\` to be an integer from 0 to 65535, got \`${String(port)}\``);
  if (token !== undefined && (typeof token !== "string" || token.length < 8 || /\s/.test(token))) {
    throw new AgentTtyError("ERR_INVALID_ARGUMENT", "Expected `token` to be a string of at least 8 characters without spaces");
  }
  if (!isLoopbackHost(host) && token === undefined) {
    throw new AgentTtyError(
      "ERR_INVALID_ARGUMENT",
      `refusing to listen on '${host}' without a token: anyone who can reach it could run commands; pass a token (agent-tty serve generates one) or use 127.0.0.1`,
    );
  }
  const ownManager = options.manager === undefined;
  const manager = options.manager ?? new SessionManager();
  let url = "";
  const gate = new Gate(token);
  const service = new SessionService({
    manager,
    env: (name) => {
      // The program gets a token good only for its own session's signal route, not the server's token.
      const signalToken = gate.signalToken(name);
      return {
        AGENT_TTY_SIGNAL_URL: `${url}/api/sessions/${encodeURIComponent(name)}/signal`,
        ...(signalToken === undefined ? {} : { AGENT_TTY_SIGNAL_TOKEN: signalToken }),
      };
    },
  });
  const app = buildApp(service, gate);
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  server.requestTimeout = 0; // cells may run for hours; SSE streams stay open
  server.headersTimeout = 30_000;
  const closeSockets = serveTerminalSockets(server, service, gate);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        new AgentTtyError("ERR_INVALID_ARGUMENT", `cannot listen on ${host}:${port}: ${error.code ?? error.message}`, { cause: error }),
      );
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  url = `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${address.port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    token,
    manager,
    service,
    loginUrl: () => `${url}${gate.loginPath()}`,
    close() {
      closing ??= (async () => {
        closeSockets();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        if (ownManager) await service.closeAll();
      })();
      return closing;
    },
  };
}
