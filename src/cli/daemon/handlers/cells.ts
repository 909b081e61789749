/**
 * The ops that run cells: `k run` (waits for the result), `k fire` (returns
 * the cell id), `k poll` (a fired cell's state or result), `k int` (Ctrl-C).
 * The lock rules are the slot's ({@link LiveSlot}); cells run through the
 * service layer's entry (which records them and refuses agents while a
 * person holds the terminal).
 */
import { AgentTtyError, SessionBusyError } from "../../../index.js";
import { settleWithin } from "../../../internal/settle-within.js";
import { cellErrorReply, errorMessage, errReply, jsonReply, textReply } from "../../shared/messages.js";
import { pyJson } from "../../shared/python.js";
import type { DaemonContext } from "../context.js";
import type { OpHandler } from "../dispatch.js";
import { LiveSlot, type CellJson, type CellKind } from "../slot.js";

/** How long `k int` waits for the program to come back after Ctrl-C. */
const INTERRUPT_WAIT_MS = 5_000;
/** What {@link settleWithin} answers when the interrupt did not come back in time. */
const TIMED_OUT = Symbol("timed out");

/** Leading blank lines and trailing blank lines are not part of a cell (the original stripped them too). */
function trimCode(code: string): string {
  return code.replace(/^(?:[ \t]*\r?\n)+/, "").replace(/(?:\r?\n[ \t]*)+$/, "");
}

/** Starts a cell, or says why it cannot start (nothing is written then). */
function start(
  ctx: DaemonContext,
  slot: LiveSlot,
  code: string,
  timeoutMs: number,
  kind: CellKind,
): { cellId: string; result: Promise<CellJson> } | string {
  const refused = slot.refusal(slot.entry.control !== null);
  if (refused !== null) return refused;
  let cell;
  try {
    cell = slot.entry.fire(trimCode(code), { timeoutMs });
  } catch (error) {
    if (error instanceof SessionBusyError) return `active cell '${error.activeCellId}'`;
    if (error instanceof AgentTtyError && error.code === "ERR_SESSION_CLOSED") return ctx.noSession(slot.name);
    return errorMessage(error);
  }
  slot.begin(cell.id, kind);
  return { cellId: cell.id, result: cell.result.then((result) => slot.settle(kind, result)) };
}

/**
 * Ctrl-C; the cell holding the lock ends "interrupted" and the lock is
 * released. False when the program did not come back within
 * {@link INTERRUPT_WAIT_MS} (`k kill` is the way out then).
 */
export async function interrupt(slot: LiveSlot): Promise<boolean> {
  const lock = slot.lock;
  if (slot.releaseCompleted()) return true;
  let ok = true;
  try {
    ok = (await settleWithin(slot.entry.interrupt(), INTERRUPT_WAIT_MS, TIMED_OUT)) !== TIMED_OUT;
  } catch (error) {
    if (!(error instanceof AgentTtyError && error.code === "ERR_SESSION_CLOSED")) ok = false;
  }
  if (!ok) return false;
  slot.interrupted(lock);
  return true;
}

/** `k run`: runs a cell and answers its result (text, or JSON with `--json`); a client that goes away interrupts its cell. */
export const run: OpHandler<"run"> = {
  waitsFor: "named",
  async handle(ctx, channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    const started = start(ctx, slot, req.code, req.timeoutMs, "run");
    if (typeof started === "string") return cellErrorReply(started, req.json);
    // A client that goes away (Ctrl-C, a killed tool call) interrupts its cell, as the original did.
    const onGone = (): void => {
      if (slot.isRunning(started.cellId)) void interrupt(slot);
    };
    channel.closeHandlers.add(onGone);
    const json = await started.result;
    channel.closeHandlers.delete(onGone);
    const failed = json.status === "error";
    const stdout = req.json ? `${pyJson(json)}\n` : `${String(json["output"] ?? "")}\n`;
    return { ok: !failed, exit: failed ? 1 : 0, stdout, result: json };
  },
};

/** `k fire`: starts a cell and answers its id at once. */
export const fire: OpHandler<"fire"> = {
  waitsFor: "named",
  handle(ctx, _channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    const started = start(ctx, slot, req.code, req.timeoutMs, "fire");
    if (typeof started === "string") return jsonReply({ status: "error", output: started }, 1);
    return jsonReply({ cell_id: started.cellId, status: "fired" });
  },
};

/** `k poll [cell]`: a fired cell's state, or its result (which reading consumes). */
export const poll: OpHandler<"poll"> = {
  waitsFor: "named",
  handle(ctx, _channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    const answer = slot.poll(req.cellId, slot.sh.activity === "awaiting_input");
    return jsonReply(answer.json, answer.exit);
  },
};

/** `k int`: Ctrl-C the running cell. */
export const int: OpHandler<"int"> = {
  waitsFor: "named",
  async handle(ctx, _channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    return (await interrupt(slot)) ? textReply("OK") : errReply("interrupt failed; use k kill");
  },
};
