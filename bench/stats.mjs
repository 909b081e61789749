// Small numeric and memory helpers shared by the bench runner and its workers.
import { readFileSync, writeFileSync } from "node:fs";

/** Percentile by nearest rank on a copy of `xs` (p in 0..100). */
export function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}

export const median = (xs) => percentile(xs, 50);

export const MB = 1024 * 1024;

/** Resident set size now, in bytes (from /proc where possible: no heap walk). */
export function rssNow() {
  return process.memoryUsage.rss();
}

/** Peak RSS since the last reset, in bytes (Linux VmHWM); NaN elsewhere. */
export function rssPeak() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Reset the kernel's peak-RSS mark to the current RSS (Linux >= 4.0). */
export function resetRssPeak() {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** Full collection, twice (needs --expose-gc), then a tick for finalizers. */
export async function settleHeap() {
  for (let i = 0; i < 2; i++) {
    globalThis.gc?.();
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Rotate `xs` by `n` so each round starts with a different contender. */
export function rotate(xs, n) {
  if (xs.length === 0) return xs;
  const k = n % xs.length;
  return [...xs.slice(k), ...xs.slice(0, k)];
}
