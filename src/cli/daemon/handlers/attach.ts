/**
 * `k attach`: a person takes the terminal. The screen is replayed, the
 * program's output streams to them, their keystrokes reach the program
 * (through the service layer's human control: agent cells are refused
 * meanwhile), and Ctrl-] (a `detach` line) gives the terminal back at the
 * session's own size.
 */
import { errorMessage, errReply } from "../../shared/messages.js";
import type { OpHandler } from "../dispatch.js";
import { LiveSlot } from "../slot.js";

/** Numbers the `k attach` clients holding a terminal. */
let attachCounter = 0;

/** `k attach [session]`: streams the terminal to a person and their keys to it, until they detach or the session ends. */
export const attach: OpHandler<"attach"> = {
  waitsFor: "named",
  handle(ctx, channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    const sh = slot.sh;
    if (req.cols > 0 && req.rows > 0) {
      // Checked before the session counts as attached: a refused size must not leave it held.
      try {
        sh.resize(req.cols, req.rows);
      } catch (error) {
        return errReply(errorMessage(error));
      }
    }
    slot.attach();
    const holderId = `k-attach-${++attachCounter}`;
    slot.entry.take(holderId, "k attach");
    channel.send({ ok: true, exit: 0, stdout: `[attached to ${slot.name}; Ctrl-] detaches]\r\n` });
    // Blank rows under the text are not replayed: the cursor stays where the text ends, as before.
    channel.send({ data: `\x1b[H\x1b[2J${sh.screen().replace(/\n+$/, "").replace(/\n/g, "\r\n")}` });
    const onData = (data: string): void => {
      if (data) channel.send({ data });
    };
    sh.on("data", onData);
    let detached = false;
    const detach = (): void => {
      if (detached) return;
      detached = true;
      sh.off("data", onData);
      offEnd();
      const last = slot.detach();
      slot.entry.release(holderId);
      if (last && !slot.closed) {
        try {
          sh.resize(slot.cols, slot.rows);
        } catch {
          /* closed meanwhile */
        }
      }
    };
    const offEnd = slot.onClose(() => {
      detach();
      channel.end({ end: true, exit: 0, stdout: `\r\n[session ${slot.name} ended]\r\n` });
    });
    channel.closeHandlers.add(detach);
    channel.onInput = (input) => {
      if (detached) return;
      try {
        if ("input" in input && typeof input.input === "string") slot.entry.humanWrite(holderId, input.input);
        else if ("resize" in input && Array.isArray(input.resize)) sh.resize(input.resize[0], input.resize[1]);
        else if ("detach" in input) {
          detach();
          channel.end({ end: true, exit: 0, stdout: `\r\n[detached from ${slot.name}]\r\n` });
        }
      } catch {
        /* the session closed: the close listener reports it */
      }
    };
    return undefined;
  },
};
