import type { DetectorIo, FrameEnd } from "./types.js";

/** Longest pause between two checks of a look-alike prompt. */
const MAX_RECHECK_MS = 100;
/** Checks made on the next turns of the event loop before waiting on timers: a program that just printed its prompt reads a moment later. */
const QUICK_RECHECKS = 4;

/**
 * Confirms that text which looks like a prompt is one: the program in the
 * foreground is blocked reading the terminal (where the system can tell).
 * Printed look-alikes (`print(">>> ")`, a flood of identical lines) are
 * checked again, with backoff, for as long as nothing new arrives.
 *
 * A program seen waiting may have printed more since the text being judged
 * was read (the terminal can hand over `>>> ` and its newline in two reads),
 * so the one check that decides is made once the event loop has read what
 * the terminal holds; anything new cancels it.
 */
export class PromptConfirmer {
  readonly #io: () => DetectorIo | undefined;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #generation = 0;
  /** Whether `waitingForInput` answered once (`/proc` is there and the program was alive). */
  #canTell = false;

  constructor(io: () => DetectorIo | undefined) {
    this.#io = io;
  }

  /**
   * Calls `act` now if nobody can tell whether the program waits for input
   * and returns its result; otherwise calls it once the program is seen
   * waiting with nothing new to read, and hands a frame end it returns to
   * `io.endFrame`.
   */
  confirm<T extends FrameEnd | undefined>(act: () => T, attempt = 0): T | undefined {
    this.cancel();
    if (this.#canTell !== true) {
      // The first time only: whether the system can tell at all (and, if not, the prompt is taken as it is).
      const waiting = this.#io()?.waitingForInput();
      if (waiting === undefined) return act();
      this.#canTell = true;
      if (!waiting) {
        this.#recheck(act, attempt);
        return undefined;
      }
    }
    // One check, after two turns of the event loop: the second starts after an I/O poll has read
    // pending output (which cancels this), so the program is judged after what it printed was seen.
    const generation = this.#generation;
    this.#immediate = setImmediate(() => {
      this.#immediate = setImmediate(() => {
        this.#immediate = undefined;
        if (generation !== this.#generation) return;
        if (this.#io()?.waitingForInput() === false) this.#recheck(act, attempt);
        else this.#finish(act);
      });
    });
    return undefined;
  }

  /** Something new arrived: a pending check no longer applies. */
  cancel(): void {
    this.#generation++;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }

  #recheck(act: () => FrameEnd | undefined, attempt: number): void {
    const generation = this.#generation;
    const again = () => {
      this.#timer = undefined;
      this.#immediate = undefined;
      if (generation !== this.#generation) return;
      const end = this.confirm(act, attempt + 1);
      if (end !== undefined) this.#io()?.endFrame(end);
    };
    if (attempt < QUICK_RECHECKS) this.#immediate = setImmediate(again);
    else this.#timer = setTimeout(again, Math.min(2 ** (attempt - QUICK_RECHECKS), MAX_RECHECK_MS));
  }

  #finish(act: () => FrameEnd | undefined): void {
    const end = act();
    if (end !== undefined) this.#io()?.endFrame(end);
  }
}
