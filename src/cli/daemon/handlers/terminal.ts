/**
 * The ops that use the terminal directly, outside cells: `k screen`,
 * `k keys`, `k type`, `k expect`.
 */
import { CellTimeoutError } from "../../../index.js";
import { errorMessage, errReply, jsonReply, textReply } from "../../shared/messages.js";
import type { Reply } from "../../shared/protocol.js";
import { pyRepr } from "../../shared/python.js";
import type { OpHandler } from "../dispatch.js";
import { LiveSlot } from "../slot.js";

/** How often `k expect` looks again at a prompt already waiting. */
const EXPECT_RECHECK_MS = 100;

/** `k screen`: the visible screen as text. */
export const screen: OpHandler<"screen"> = {
  waitsFor: "named",
  handle(ctx, _channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    return { ok: true, exit: 0, stdout: `${slot.sh.screen()}\n` };
  },
};

/** `k keys`: presses named keys (nothing is sent when one of them is unknown). */
export const keys: OpHandler<"keys"> = {
  waitsFor: "all",
  handle(ctx, _channel, req) {
    const { name, words } = ctx.sessionInWords(req.session, req.words);
    const slot = ctx.slotFor(req, name);
    if (!(slot instanceof LiveSlot)) return slot;
    try {
      slot.sh.press(...words);
    } catch (error) {
      return errReply(errorMessage(error));
    }
    return textReply("OK");
  },
};

/** `k type`: types text literally (no Enter). */
export const type: OpHandler<"type"> = {
  waitsFor: "named",
  handle(ctx, _channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    slot.sh.type(req.text);
    return textReply("OK");
  },
};

/** A pattern `k expect` found: the match, its groups, the text before it on its line. */
interface Found {
  readonly match: string;
  readonly groups: string[];
  readonly before: string;
}

/** `/re/flags` or a bare regular expression (`g` is ignored). */
function parsePattern(source: string): RegExp {
  const literal = /^\/(.*)\/([dgimsuy]*)$/s.exec(source);
  return literal ? new RegExp(literal[1] ?? "", (literal[2] ?? "").replace("g", "")) : new RegExp(source);
}

/**
 * A prompt already waiting that matches: the last line of a cell that awaits
 * input (trailing spaces kept), or else the last non-blank line of the screen.
 */
function waitingLine(slot: LiveSlot, pattern: RegExp): Found | null {
  const waiting = slot.sh.poll();
  const candidates: string[] = [];
  if (waiting?.status === "awaiting_input" && waiting.output !== undefined) candidates.push(waiting.output.split("\n").pop() ?? "");
  candidates.push(
    slot.sh
      .screen()
      .split("\n")
      .filter((l) => l.trim() !== "")
      .pop() ?? "",
  );
  for (const line of candidates) {
    const found = pattern.exec(line);
    if (found) return { match: found[0], groups: found.slice(1).map((g) => g ?? ""), before: line.slice(0, found.index) };
  }
  return null;
}

/** `k expect [session] <pattern>`: waits until the output (or a prompt already waiting) matches. */
export const expect: OpHandler<"expect"> = {
  waitsFor: "all",
  async handle(ctx, _channel, req): Promise<Reply> {
    const [first, second] = req.words;
    const name = second !== undefined ? (first ?? null) : req.session;
    const source = second ?? first ?? "";
    const slot = ctx.slotFor(req, name);
    if (!(slot instanceof LiveSlot)) return slot;
    let pattern: RegExp;
    try {
      pattern = parsePattern(source);
    } catch (error) {
      return errReply(`invalid pattern: ${errorMessage(error)}`);
    }
    const done = (found: Found): Reply =>
      req.json
        ? jsonReply({ status: "matched", ...found })
        : textReply(`OK ${found.match}`, 0, { match: found.match, groups: found.groups, before: found.before });
    // A prompt printed just before this call is seen once the program is
    // found waiting for input: checked now and while waiting.
    const now = waitingLine(slot, pattern);
    if (now) return done(now);
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const onPrompt = new Promise<Found>((resolveSeen) => {
      timer = setInterval(() => {
        const seen = waitingLine(slot, pattern);
        if (seen) resolveSeen(seen);
      }, EXPECT_RECHECK_MS);
    });
    try {
      const found = await Promise.race([slot.sh.expect(pattern, { timeoutMs: req.timeoutMs, signal: abort.signal }), onPrompt]);
      return done({ match: found.match, groups: found.groups.map((g) => g ?? ""), before: found.before });
    } catch (error) {
      if (error instanceof CellTimeoutError) {
        const recent = error.recentOutput.slice(-300);
        const seconds = Math.round(req.timeoutMs / 1000);
        if (req.json) return jsonReply({ status: "timeout", output: recent }, 1);
        return errReply(
          `timeout after ${seconds} s waiting for ${pattern}; last output: ${pyRepr(recent.split("\n").slice(-3).join("\n"))}`,
        );
      }
      return errReply(errorMessage(error));
    } finally {
      clearInterval(timer);
      abort.abort();
    }
  },
};
