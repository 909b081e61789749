/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** How long to keep trying. @default 5000 */
  readonly timeoutMs?: number;
  /** Pause between attempts. @default 20 */
  readonly intervalMs?: number;
  /** Said in the timeout error, to tell what was awaited. */
  readonly message?: string;
}

/**
 * Polls `probe` until it returns something other than `undefined`, `false`
 * or `null`, and returns that value. Throws when the deadline passes,
 * quoting the last value seen (or the last error `probe` threw).
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      const what = options.message ?? "condition";
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms (last: ${seen})`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
