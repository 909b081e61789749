import type { DetectorIo, FrameEnd } from "./types.js";

/** Longest pause between two checks of a look-alike prompt. */
const MAX_RECHECK_MS = 100;
/**
 * Checks made on the next turns of the event loop before waiting on timers: a program that just
 * printed its prompt reads a moment later. A lingering check takes three turns, an immediate one one.
 */
const QUICK_RECHECKS = 6;
const QUICK_LINGERING_RECHECKS = 4;

/**
 * Confirms that text which looks like a prompt is one: the program in the
 * foreground is blocked reading the terminal (where the system can tell).
 * Printed look-alikes (`print(">>> ")`, a flood of identical lines) are
 * checked again, with backoff, for as long as nothing new arrives.
 *
 * A program seen waiting may have printed more since the text being judged
 * was read (the terminal can hand over `>>> ` and its newline in two reads):
 * `waitingForInput` answers true only when the terminal also holds nothing
 * unread (the session reads it without waiting, after seeing the program
 * blocked), and what it finds is fed before anything else and cancels the
 * check. The check is made at once, in the same turn as the text arrived:
 * the frame ends without waiting for the event loop.
 *
 * With `lingering`, the program must still be waiting two turns of the event
 * loop later (an I/O poll between them): for text that may be a redraw
 * before the rest of what was typed reaches the program (shell
 * integration's prompt after a pasted cell, before its Enter is read).
 */
export class PromptConfirmer {
  private readonly io: () => DetectorIo | undefined;
  private readonly lingering: boolean;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private generation = 0;
  /** With `lingering`: whether `waitingForInput` answered once (`/proc` is there and the program was alive). */
  private canTell = false;

  constructor(io: () => DetectorIo | undefined, options: { readonly lingering?: boolean } = {}) {
    this.io = io;
    this.lingering = options.lingering === true;
  }

  /**
   * Calls `act` now if nobody can tell whether the program waits for input
   * and returns its result; otherwise calls it once the program is seen
   * waiting with nothing new to read, and hands a frame end it returns to
   * `io.endFrame`.
   */
  confirm<T extends FrameEnd | undefined>(act: () => T, attempt = 0): T | undefined {
    this.cancel();
    if (this.lingering) return this.confirmLingering(act, attempt);
    // Where the system cannot tell (no /proc), the prompt is taken as it is.
    if (this.io()?.waitingForInput() !== false) return act();
    this.recheck(act, attempt);
    return undefined;
  }

  private confirmLingering<T extends FrameEnd | undefined>(act: () => T, attempt: number): T | undefined {
    if (!this.canTell) {
      // The first time only: whether the system can tell at all (and, if not, the prompt is taken as it is).
      const waiting = this.io()?.waitingForInput();
      if (waiting === undefined) return act();
      this.canTell = true;
      if (!waiting) {
        this.recheck(act, attempt);
        return undefined;
      }
    }
    // One check, after two turns of the event loop: the second starts after an I/O poll.
    const generation = this.generation;
    this.immediate = setImmediate(() => {
      this.immediate = setImmediate(() => {
        this.immediate = undefined;
        if (generation !== this.generation) return;
        if (this.io()?.waitingForInput() === false) this.recheck(act, attempt);
        else {
          const end = act();
          if (end !== undefined) this.io()?.endFrame(end);
        }
      });
    });
    return undefined;
  }

  /** Something new arrived: a pending check no longer applies. */
  cancel(): void {
    // Nothing pending (most cells): no check to call off (the generation only tells pending checks apart).
    if (this.timer === undefined && this.immediate === undefined) return;
    this.generation++;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }

  private recheck(act: () => FrameEnd | undefined, attempt: number): void {
    const generation = this.generation;
    const again = () => {
      this.timer = undefined;
      this.immediate = undefined;
      if (generation !== this.generation) return;
      const end = this.confirm(act, attempt + 1);
      if (end !== undefined) this.io()?.endFrame(end);
    };
    const quick = this.lingering ? QUICK_LINGERING_RECHECKS : QUICK_RECHECKS;
    if (attempt < quick) this.immediate = setImmediate(again);
    else this.timer = setTimeout(again, Math.min(2 ** (attempt - quick), MAX_RECHECK_MS));
  }
}
