import { afterEach, describe, expect, it, vi } from "vitest";
import { LapsingInterval } from "../../src/internal/lapsing-interval.js";
import { MAX_TIMER_MS } from "../../src/internal/long-timeout.js";
import { ReusableTimeout } from "../../src/internal/reusable-timeout.js";

// The timers a session reuses from cell to cell (a cell's deadline, the
// periodic checks while it runs), on a fake clock.

afterEach(() => {
  vi.useRealTimers();
});

describe("LapsingInterval", () => {
  it("ticks while started; once stopped it ticks no more and its timer ends at the next period", async () => {
    vi.useFakeTimers();
    const tick = vi.fn();
    const interval = new LapsingInterval(50, tick);
    interval.start();
    await vi.advanceTimersByTimeAsync(200);
    expect(tick).toHaveBeenCalledTimes(4);
    interval.stop();
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(500);
    expect(tick).toHaveBeenCalledTimes(4);
  });

  it("stopped and started again before its next tick, it keeps its one timer (back-to-back cells share it)", async () => {
    vi.useFakeTimers();
    const tick = vi.fn();
    const interval = new LapsingInterval(50, tick);
    for (let cell = 0; cell < 10; cell++) {
      interval.start();
      await vi.advanceTimersByTimeAsync(10);
      expect(vi.getTimerCount()).toBe(1);
      interval.stop();
      await vi.advanceTimersByTimeAsync(1);
    }
    // 110 ms of cells and gaps: the ticks at 50 and 100 ms came while a cell ran.
    expect(tick).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(1);
    interval.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("ReusableTimeout", () => {
  it("calls back once the delay passed, and not when cleared first; a cleared timer lapses", async () => {
    vi.useFakeTimers();
    const timeout = new ReusableTimeout();
    const fired = vi.fn();
    timeout.arm(1_000, fired);
    expect(timeout.pending).toBe(true);
    await vi.advanceTimersByTimeAsync(999);
    expect(fired).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(timeout.pending).toBe(false);

    const cleared = vi.fn();
    timeout.arm(1_000, cleared);
    timeout.clear();
    expect(timeout.pending).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(cleared).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("armed again, the new delay counts from then and only the last callback runs, on one timer", async () => {
    vi.useFakeTimers();
    const timeout = new ReusableTimeout();
    const first = vi.fn();
    const second = vi.fn();
    timeout.arm(1_000, first);
    await vi.advanceTimersByTimeAsync(600);
    timeout.clear();
    timeout.arm(1_000, second);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(second).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(second).toHaveBeenCalledTimes(1);
    expect(first).not.toHaveBeenCalled();
    // Another delay: its own timer.
    const third = vi.fn();
    timeout.arm(300, third);
    await vi.advanceTimersByTimeAsync(300);
    expect(third).toHaveBeenCalledTimes(1);
  });

  it("waits out a delay past Node's timer limit in steps instead of firing at once", async () => {
    vi.useFakeTimers();
    const timeout = new ReusableTimeout();
    const fired = vi.fn();
    timeout.arm(MAX_TIMER_MS + 5_000, fired);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it("dispose() ends the timer at once", () => {
    vi.useFakeTimers();
    const timeout = new ReusableTimeout();
    timeout.arm(1_000, () => undefined);
    timeout.dispose();
    expect(vi.getTimerCount()).toBe(0);
    expect(timeout.pending).toBe(false);
  });
});
