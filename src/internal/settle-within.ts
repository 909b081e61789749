import pTimeout from "p-timeout";

/**
 * `promise`'s value if it settles within `ms`, else `fallback` (the timer is
 * cleared either way). The one way this code base races a promise against
 * a deadline; a rejection passes through.
 */
export function settleWithin<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  return pTimeout<T | F>(promise, { milliseconds: ms, fallback: () => fallback });
}
