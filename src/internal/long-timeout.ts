/** Node's longest timer: a longer delay overflows and fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A pending {@link setLongTimeout}. */
export interface LongTimeout {
  clear(): void;
}

/**
 * `setTimeout` for any finite delay: delays past Node's 2^31−1 ms limit are
 * waited out in steps instead of overflowing (which would fire at once).
 */
export function setLongTimeout(callback: () => void, ms: number): LongTimeout {
  let timer: NodeJS.Timeout;
  const arm = (left: number): void => {
    timer = left > MAX_TIMER_MS ? setTimeout(() => arm(left - MAX_TIMER_MS), MAX_TIMER_MS) : setTimeout(callback, left);
  };
  arm(ms);
  return { clear: () => clearTimeout(timer) };
}
