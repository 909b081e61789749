/**
 * One WebSocket per watched terminal (`/api/sessions/:name/terminal`): the
 * current screen first, then the terminal's bytes live. A watcher may take
 * the terminal over (`{type:"take"}`), type into it and resize it, and give
 * it back (`{type:"give"}`, or by closing). A watcher that falls behind has
 * its backlog dropped and gets the screen again: memory stays bounded.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { controlView, errorBody, httpStatus, type ServiceEvent, type SessionEntry, type SessionService } from "../service/index.js";
import type { Gate } from "./auth.js";

/** Bytes queued for one watcher beyond which its backlog is dropped. */
const MAX_BUFFERED = 1 << 20;
/** Largest message a browser may send (keystrokes, a paste). */
const MAX_MESSAGE = 256 * 1024;
/** How often a watcher that fell behind is checked for having drained. */
const DRAIN_CHECK_MS = 100;
const PATH = /^\/api\/sessions\/([^/]+)\/terminal$/;

/** What the page sends. */
type ClientMessage = { type: "take" } | { type: "give" } | { type: "input"; data: string } | { type: "resize"; cols: number; rows: number };

/** Serves terminal WebSockets on `server`; returns a function that closes them all. */
export function serveTerminalSockets(server: Server, service: SessionService, gate: Gate): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const match = PATH.exec(path);
    if (match === null) return refuse(socket, 404, { error: { code: "ERR_NOT_FOUND", message: `no WebSocket at ${path}` } });
    const refusal = gate.check("GET", req.headers, { upgrade: true });
    if (refusal !== null) return refuse(socket, refusal.status, { error: { code: refusal.code, message: refusal.message } });
    let entry: SessionEntry;
    try {
      entry = service.get(decodeURIComponent(match[1] ?? ""));
    } catch (error) {
      return refuse(socket, httpStatus(error), errorBody(error));
    }
    wss.handleUpgrade(req, socket, head, (ws) => watch(ws, entry, service));
  });
  return () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
  };
}

function refuse(socket: Duplex, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  const reason = status === 401 ? "Unauthorized" : status === 403 ? "Forbidden" : status === 404 ? "Not Found" : "Conflict";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** The screen as bytes that redraw it on a fresh terminal: colours, attributes and modes kept. */
function replay(entry: SessionEntry): string {
  const sh = entry.session;
  const cursor = sh.cursor();
  return `\x1b[H\x1b[2J\x1b[0m${sh.screen({ styled: true })}\x1b[${cursor.y + 1};${cursor.x + 1}H`;
}

function watch(ws: WebSocket, entry: SessionEntry, service: SessionService): void {
  const id = `web-${randomBytes(6).toString("hex")}`;
  const sh = entry.session;
  const size = { cols: sh.cols, rows: sh.rows };
  let behind = false;
  const send = (message: object): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  const control = (): object => ({ type: "control", control: controlView(entry.control), you: entry.holds(id) });
  send({ type: "hello", session: entry.name, cols: sh.cols, rows: sh.rows, data: replay(entry) });
  send(control());

  // Once drained, a watcher that fell behind gets the screen again (checked on a timer: the program may be quiet by then).
  let drainCheck: NodeJS.Timeout | undefined;
  const catchUp = (): void => {
    if (ws.bufferedAmount >= MAX_BUFFERED / 4 || ws.readyState !== ws.OPEN) return;
    clearInterval(drainCheck);
    drainCheck = undefined;
    behind = false;
    send({ type: "reset", cols: sh.cols, rows: sh.rows, data: replay(entry) });
  };
  const onData = (data: string): void => {
    if (behind) return;
    if (ws.bufferedAmount > MAX_BUFFERED) {
      behind = true;
      drainCheck = setInterval(catchUp, DRAIN_CHECK_MS);
      return;
    }
    send({ type: "data", data });
  };
  const onService = (event: ServiceEvent): void => {
    if (event.session !== entry.name) return;
    if (event.type === "control") send(control());
    if (event.type === "cell")
      send({ type: "cell", cell: { cellId: event.cell.cellId, status: event.cell.status, exitCode: event.cell.exitCode } });
  };
  const onExit = (): void => {
    send({ type: "exit", exitCode: sh.exitCode });
    ws.close(1000, "session ended");
  };
  sh.on("data", onData);
  sh.once("exit", onExit);
  service.events.on("event", onService);

  const giveBack = (): void => {
    if (!entry.release(id)) return;
    if (entry.control === null && sh.state !== "closed" && sh.state !== "exited" && (sh.cols !== size.cols || sh.rows !== size.rows)) {
      try {
        sh.resize(size.cols, size.rows);
        send({ type: "resize", cols: size.cols, rows: size.rows });
      } catch {
        /* closed meanwhile */
      }
    }
  };

  ws.on("message", (raw, isBinary) => {
    if (isBinary) return;
    let message: ClientMessage;
    try {
      message = JSON.parse(String(raw)) as ClientMessage;
    } catch {
      return;
    }
    try {
      switch (message.type) {
        case "take":
          entry.take(id, "web");
          break;
        case "give":
          giveBack();
          break;
        case "input":
          if (typeof message.data === "string") entry.humanWrite(id, message.data);
          break;
        case "resize":
          if (
            entry.holds(id) &&
            Number.isInteger(message.cols) &&
            Number.isInteger(message.rows) &&
            message.cols >= 10 &&
            message.rows >= 2 &&
            message.cols <= 1000 &&
            message.rows <= 500
          ) {
            sh.resize(message.cols, message.rows);
          }
          break;
      }
    } catch (error) {
      send({ type: "error", ...errorBody(error) });
    }
  });
  ws.on("close", () => {
    clearInterval(drainCheck);
    sh.off("data", onData);
    sh.off("exit", onExit);
    service.events.off("event", onService);
    giveBack();
  });
  ws.on("error", () => ws.terminate());
}
