/**
 * The ops about what happened in a session: `k history` and `k watch` (the
 * filtered log), `k notify` (a note for watchers and km), `km` (`monitor`:
 * cell events as JSON lines).
 */
import { textReply } from "../../shared/messages.js";
import { pyJson, pyTimestamp } from "../../shared/python.js";
import type { OpHandler } from "../dispatch.js";
import { LiveSlot, type KmEvent } from "../slot.js";
import { formatEntry } from "../watch-log.js";

/** Log entries per cell `k history <n>` shows at most. */
const HISTORY_ENTRIES_PER_CELL = 5;

/** `k history [n]`: the last lines of the filtered log. */
export const history: OpHandler<"history"> = {
  waitsFor: "named",
  handle(ctx, _channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    const lines = slot.log.tail(req.n * HISTORY_ENTRIES_PER_CELL).map((entry) => formatEntry(entry, req.color));
    return { ok: true, exit: 0, stdout: lines.length > 0 ? `${lines.join("\n")}\n` : "" };
  },
};

/** `k notify [session] <words>`: a note in the log, and a km event. */
export const notify: OpHandler<"notify"> = {
  waitsFor: "all",
  handle(ctx, _channel, req) {
    const { name, words } = ctx.sessionInWords(req.session, req.words);
    const text = words.join(" ");
    const slot = ctx.slotFor(req, name);
    if (!(slot instanceof LiveSlot)) return slot;
    slot.log.mark({ kind: "notify", from: req.from, message: text });
    slot.emit({ session: slot.name, status: "notify", from: req.from, message: text });
    return textReply(`OK notified: ${text}`);
  },
};

/** `k watch`: streams the filtered log until the client goes or the session ends. */
export const watch: OpHandler<"watch"> = {
  waitsFor: "named",
  handle(ctx, channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    const header = `watching ${slot.name} (ctrl-c to stop)`;
    channel.send({ ok: true, exit: 0, stdout: `${req.color ? `\x1b[2m${header}\x1b[0m` : header}\n\n` });
    const unsubscribe = slot.log.subscribe((entry) => channel.send({ line: formatEntry(entry, req.color) }));
    const offClose = slot.onClose(() => channel.end({ end: true, exit: 0, stdout: `[session ${slot.name} ended]\n` }));
    channel.closeHandlers.add(() => {
      unsubscribe();
      offClose();
    });
    return undefined;
  },
};

/** A cell's km status that ends it. */
function isEnd(status: string | undefined): boolean {
  return status === "done" || status === "timeout" || status === "interrupted";
}

/** `km <session> [cell] [--once]`: the session's cell events as JSON lines, until the client goes (or the cell ends, with `--once`). */
export const monitor: OpHandler<"monitor"> = {
  waitsFor: "named",
  handle(ctx, channel, req) {
    const slot = ctx.slots.get(req.session);
    const line = (event: KmEvent): string => pyJson({ ...event, ts: pyTimestamp() });
    if (slot === undefined) {
      // km prints its own kind of line, not `k`'s: its error is an event too.
      return { ok: false, exit: 1, stdout: `${line({ session: req.session, status: "error", message: `no session '${req.session}'` })}\n` };
    }
    channel.send({ ok: true, exit: 0 });
    let finished = false;
    const listener = (event: KmEvent): void => {
      if (finished) return;
      const cell = event["cell_id"];
      if (cell !== undefined && req.cellId !== null && cell !== req.cellId) return;
      if (event["status"] === "closed") {
        finished = true;
        channel.send({ line: line(event) });
        channel.end({ end: true, exit: 1 });
        return;
      }
      channel.send({ line: line(event) });
      if (req.once && cell !== undefined && isEnd(event["status"])) {
        finished = true;
        channel.end({ end: true, exit: 0 });
      }
    };
    // A cell that already ended before the monitor came reports at once (no lost wake-up).
    const past = req.cellId !== null ? slot.settledStatus(req.cellId) : undefined;
    if (req.cellId !== null && past !== undefined) listener({ cell_id: req.cellId, session: slot.name, status: past });
    if (finished) return undefined;
    channel.closeHandlers.add(slot.subscribe(listener));
    return undefined;
  },
};
