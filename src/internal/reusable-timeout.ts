import { MAX_TIMER_MS, type LongTimeout } from "./long-timeout.js";

/**
 * A timeout armed again and again (a session's cell deadline: once per
 * cell) on one timer: arming it again with the same delay restarts the
 * pending timer (`refresh()`), and {@link ReusableTimeout.clear} leaves the
 * timer to lapse (it fires once, doing nothing) instead of cancelling it.
 * Node keeps a list of timers per duration and drops it (a priority-queue
 * update) when its last timer goes: a fresh timer armed and cancelled per
 * cell cost more than the rest of a small cell's bookkeeping. Delays past
 * Node's 2^31−1 ms limit are waited out in steps, as `setLongTimeout` does.
 *
 * One callback is pending at a time: arming replaces it.
 *
 * @internal
 */
export class ReusableTimeout implements LongTimeout {
  #timer: NodeJS.Timeout | undefined;
  /** The delay the pending timer was armed with. */
  #stepMs = -1;
  /** What is left to wait after the pending step (delays past Node's limit). */
  #leftMs = 0;
  #callback: (() => void) | undefined;

  /** Whether a callback is pending. */
  get pending(): boolean {
    return this.#callback !== undefined;
  }

  /** Calls `callback` once `ms` have passed, unless cleared or armed again first. */
  arm(ms: number, callback: () => void): void {
    this.#callback = callback;
    const step = Math.min(ms, MAX_TIMER_MS);
    this.#leftMs = ms - step;
    if (this.#timer !== undefined && this.#stepMs === step) {
      this.#timer.refresh();
      return;
    }
    this.#schedule(step);
  }

  /** Nothing is called; the timer lapses unless armed again first. */
  clear(): void {
    this.#callback = undefined;
  }

  /** Nothing is called, and the timer ends now (nothing may outlive its owner). */
  dispose(): void {
    this.#callback = undefined;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(step: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#stepMs = step;
    this.#timer = setTimeout(() => this.#fire(), step);
  }

  #fire(): void {
    this.#timer = undefined;
    const callback = this.#callback;
    if (callback === undefined) return;
    if (this.#leftMs > 0) {
      const step = Math.min(this.#leftMs, MAX_TIMER_MS);
      this.#leftMs -= step;
      this.#schedule(step);
      return;
    }
    this.#callback = undefined;
    callback();
  }
}
