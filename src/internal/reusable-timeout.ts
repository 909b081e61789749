import { MAX_TIMER_MS, type LongTimeout } from "./long-timeout.js";

/**
 * A timeout armed again and again (a session's cell deadline: once per
 * cell) on one timer. Arming it again only moves its due time: a pending
 * timer that fires no later than that is kept, and when it fires early it
 * waits out the rest (one more timer per deadline actually reached, none per
 * cell). {@link ReusableTimeout.clear} leaves the timer to lapse (it fires
 * once, doing nothing) instead of cancelling it. Node keeps a list of timers
 * per duration and drops it (a priority-queue update) when its last timer
 * goes, and even `refresh()` re-inserts the timer: either, once per cell,
 * cost more than the rest of a small cell's bookkeeping. Delays past Node's
 * 2^31−1 ms limit are waited out in steps, as `setLongTimeout` does.
 *
 * One callback is pending at a time: arming replaces it.
 *
 * Members TypeScript-`private`, not `#private` (see `CellLifecycle`: cheaper on every cell's path).
 *
 * @internal
 */
export class ReusableTimeout implements LongTimeout {
  private timer: NodeJS.Timeout | undefined;
  /** When the pending timer fires (`performance.now()` time). */
  private timerAt = 0;
  /** When the callback is due, for the step under way (`performance.now()` time). */
  private dueAt = 0;
  /** What is left to wait after the step under way (delays past Node's limit). */
  private leftMs = 0;
  private callback: (() => void) | undefined;
  private readonly onTimer = (): void => this.fire();

  /** Whether a callback is pending. */
  get pending(): boolean {
    return this.callback !== undefined;
  }

  /**
   * Calls `callback` once `ms` have passed, unless cleared or armed again first.
   *
   * @param now - `performance.now()`, when the caller has it at hand.
   */
  arm(ms: number, callback: () => void, now = performance.now()): void {
    this.callback = callback;
    const step = Math.min(ms, MAX_TIMER_MS);
    this.leftMs = ms - step;
    // (The sum kept in a local: reading a fractional field back makes a number object, 16 bytes, until optimized.)
    const dueAt = now + step;
    this.dueAt = dueAt;
    // The pending timer fires no later than this: it is kept, and waits out the rest when it fires.
    if (this.timer !== undefined && this.timerAt <= dueAt) return;
    this.schedule(step, now);
  }

  /** Nothing is called; the timer lapses unless armed again first. */
  clear(): void {
    this.callback = undefined;
  }

  /** Nothing is called, and the timer ends now (nothing may outlive its owner). */
  dispose(): void {
    this.callback = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number, now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = now + ms;
    this.timer = setTimeout(this.onTimer, ms);
  }

  private fire(): void {
    this.timer = undefined;
    if (this.callback === undefined) return;
    const now = performance.now();
    const rest = this.dueAt - now;
    if (rest > 0) {
      // Armed again since this timer was set (or the timer came a little early): the rest of the wait.
      this.schedule(Math.max(1, Math.ceil(rest)), now);
      return;
    }
    if (this.leftMs > 0) {
      const step = Math.min(this.leftMs, MAX_TIMER_MS);
      this.leftMs -= step;
      this.dueAt = now + step;
      this.schedule(step, now);
      return;
    }
    const callback = this.callback;
    this.callback = undefined;
    callback();
  }
}
