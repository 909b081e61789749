/** Options of {@link LapsingInterval}. */
export interface LapsingIntervalOptions {
  /** Let the process exit while the timer is pending. @default false */
  readonly unref?: boolean;
}

/**
 * A periodic check that runs while something is under way and is started
 * and stopped often (once per cell): {@link LapsingInterval.stop} only marks
 * it idle, and the timer ends at its next tick unless it was started again
 * meanwhile, so back-to-back cells share one timer. Node keeps a list of
 * timers per duration and drops it (a priority-queue update) when its last
 * timer goes: arming and clearing one timer per cell cost more than the
 * rest of a small cell's bookkeeping.
 *
 * The first tick after `start()` comes within one period (not exactly one
 * period later): for checks that look at how long something has been quiet.
 *
 * Members TypeScript-`private`, not `#private` (see `CellLifecycle`: cheaper on every cell's path).
 *
 * @internal
 */
export class LapsingInterval {
  private readonly periodMs: number;
  private readonly tick: () => void;
  private readonly unref: boolean;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;

  /** @param tick - called every `periodMs` while started. */
  constructor(periodMs: number, tick: () => void, options: LapsingIntervalOptions = {}) {
    this.periodMs = periodMs;
    this.tick = tick;
    this.unref = options.unref ?? false;
  }

  /** Whether it is started (ticks call the callback). */
  get active(): boolean {
    return this.ticking;
  }

  /** Ticks from now on (the timer is armed if it is not pending). */
  start(): void {
    this.ticking = true;
    if (this.timer === undefined) this.arm();
  }

  /** No more ticks; the timer ends at its next tick unless started again first. */
  stop(): void {
    this.ticking = false;
  }

  /** No more ticks, and the timer ends now (nothing may outlive its owner). */
  dispose(): void {
    this.ticking = false;
    this.clear();
  }

  /** Apart from `start()` (every cell): an arrow there made it allocate a closure context on every call. */
  private arm(): void {
    this.timer = setInterval(() => this.onTick(), this.periodMs);
    if (this.unref) this.timer.unref();
  }

  private onTick(): void {
    if (!this.ticking) {
      this.clear();
      return;
    }
    this.tick();
  }

  private clear(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
