import type { DetectorIo, FrameEnd } from "./types.js";

/** Longest pause between two checks of a look-alike prompt. */
const MAX_RECHECK_MS = 100;

/**
 * Confirms that text which looks like a prompt is one: the program in the
 * foreground is blocked reading the terminal (where the system can tell).
 * Printed look-alikes (`print(">>> ")`, a flood of identical lines) are
 * checked again, with backoff, for as long as nothing new arrives.
 */
export class PromptConfirmer {
  readonly #io: () => DetectorIo | undefined;
  #timer: NodeJS.Timeout | undefined;
  #generation = 0;

  constructor(io: () => DetectorIo | undefined) {
    this.#io = io;
  }

  /**
   * Calls `act` now if the program waits for input (or nobody can tell) and
   * returns its result; otherwise calls it later, once it does, and hands a
   * frame end it returns to `io.endFrame`.
   */
  confirm<T extends FrameEnd | undefined>(act: () => T, delayMs = 1): T | undefined {
    this.cancel();
    if (this.#io()?.waitingForInput() !== false) return act();
    const generation = this.#generation;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (generation !== this.#generation) return;
      const end = this.confirm(act, Math.min(delayMs * 2, MAX_RECHECK_MS));
      if (end !== undefined) this.#io()?.endFrame(end);
    }, delayMs);
    return undefined;
  }

  /** Something new arrived: a pending check no longer applies. */
  cancel(): void {
    this.#generation++;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
