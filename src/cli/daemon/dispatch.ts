/**
 * The daemon's dispatch table: one handler per op of the protocol, checked
 * by the compiler (every op has exactly one entry, and each handler takes
 * its op's request type), and the one place a request line is routed.
 */
import { errorMessage, errReply } from "../shared/messages.js";
import { PROTOCOL_VERSION, type Op, type Reply, type Request } from "../shared/protocol.js";
import { pyRepr } from "../shared/python.js";
import type { Channel } from "./connection.js";
import type { DaemonContext } from "./context.js";
import { attach } from "./handlers/attach.js";
import { fire, int, poll, run } from "./handlers/cells.js";
import { history, monitor, notify, watch } from "./handlers/events.js";
import { kill, ls, newSession, ping, shutdown, status } from "./handlers/lifecycle.js";
import { expect, keys, screen, type } from "./handlers/terminal.js";

/** The request of one op. */
export type RequestOf<O extends Op> = Extract<Request, { op: O }>;

/**
 * Which sessions still starting a request waits for before it is handled:
 * none, the one it names (all when it names none), or all (the session's
 * name may hide in its words: `k keys s enter`).
 */
export type WaitsFor = "none" | "named" | "all";

/** How the daemon serves one op. */
export interface OpHandler<O extends Op> {
  /** Which sessions still starting the request waits for before {@link OpHandler.handle} runs. */
  readonly waitsFor: WaitsFor;
  /**
   * Answers `request`: a returned {@link Reply} is sent and ends the
   * connection; a streaming op answers through `channel` and returns nothing.
   */
  handle(ctx: DaemonContext, channel: Channel, request: RequestOf<O>): Reply | undefined | Promise<Reply | undefined>;
}

/** A handler for every op. */
export type HandlerTable = { readonly [O in Op]: OpHandler<O> };

/** The ops of protocol 1 and their handlers, grouped by concern in handlers/. */
export const HANDLERS: HandlerTable = {
  ping,
  shutdown,
  new: newSession,
  kill,
  ls,
  status,
  run,
  fire,
  poll,
  int,
  screen,
  keys,
  type,
  expect,
  history,
  notify,
  watch,
  monitor,
  attach,
};

/**
 * Serves one request line (already parsed): checks its protocol version,
 * routes it by op (an unknown op gets an error reply), waits for the
 * sessions it may be about to start, runs its handler, and ends the
 * connection with the handler's reply. A handler that throws answers
 * "internal error" (and is logged). Never rejects.
 */
export async function dispatch(ctx: DaemonContext, channel: Channel, value: unknown, handlers: HandlerTable = HANDLERS): Promise<void> {
  const request = (typeof value === "object" && value !== null ? value : {}) as { v?: unknown; op?: unknown; session?: unknown };
  try {
    if (request.v !== PROTOCOL_VERSION) {
      channel.end(
        errReply(
          `this agent-tty daemon speaks protocol ${PROTOCOL_VERSION}, the client ${String(request.v)}; stop it with 'agent-tty daemon stop' and retry`,
        ),
      );
      return;
    }
    const op = request.op;
    if (typeof op !== "string" || !Object.hasOwn(handlers, op)) {
      channel.end(errReply(`unknown op ${pyRepr(String(op))}`));
      return;
    }
    const handler = handlers[op as Op] as OpHandler<Op>;
    if (handler.waitsFor !== "none") {
      const named = handler.waitsFor === "named" && typeof request.session === "string" ? request.session : null;
      await ctx.startedSessions(named);
    }
    const reply = await handler.handle(ctx, channel, request as RequestOf<Op>);
    if (reply !== undefined) channel.end(reply);
  } catch (error) {
    console.error(`${new Date().toISOString()} request failed:`, error);
    channel.end(errReply(`internal error: ${errorMessage(error)}`));
  }
}
