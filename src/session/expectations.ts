import { CellTimeoutError, SessionClosedError } from "../errors.js";
import { Expectation, type ExpectMatch } from "../expect.js";
import { defer } from "../internal/deferred.js";
import { setLongTimeout } from "../internal/long-timeout.js";
import type { OutputPipeline } from "./output-pipeline.js";

/** How often `expect(…, { on: "screen" })` looks at the screen while output arrives. */
const SCREEN_EXPECT_INTERVAL_MS = 25;

/** What a wait for text watches: the session's output pipeline, its raw output and its end. */
export interface ExpectSource {
  /** The session's name, for errors. */
  readonly name: string;
  /** Clean lines, the unfinished line and the screen. */
  readonly output: Pick<OutputPipeline, "watchLines" | "partialLine" | "screen" | "lastScreenText">;
  /** Calls `listener` after each chunk of output; returns how to stop. */
  onData(listener: () => void): () => void;
  /** Calls `listener` when the program ends; returns how to stop. */
  onExit(listener: () => void): () => void;
}

/** How one wait for text ends, besides a match: its deadline and an abort signal. */
export interface ExpectLimits {
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * Waits for `pattern` in the clean output that arrives from now on (complete lines, and an
 * unfinished line such as a prompt). Rejects with {@link CellTimeoutError} (carrying the recent
 * output) at the deadline, with the signal's reason when aborted, with {@link SessionClosedError}
 * when the program ends first.
 *
 * @internal
 */
export function expectOutput(source: ExpectSource, pattern: string | RegExp, { timeoutMs, signal }: ExpectLimits): Promise<ExpectMatch> {
  const found = defer<ExpectMatch>();
  const expectation = new Expectation(pattern, source.output.partialLine);
  const check = (line: string | undefined, partial: string) => {
    const match = expectation.feed(line, partial);
    if (match === undefined) return;
    finish();
    found.resolve(match);
  };
  const timer = setLongTimeout(() => {
    finish();
    const recent = expectation.recent(source.output.partialLine);
    found.reject(
      new CellTimeoutError(
        `expect(${String(pattern)}) saw no match within ${timeoutMs} ms in session '${source.name}'; see recentOutput for what came instead`,
        recent,
      ),
    );
  }, timeoutMs);
  const onAbort = () => {
    finish();
    found.reject(signal?.reason);
  };
  const finish = () => {
    unwatch();
    unwatchExit();
    timer.clear();
    signal?.removeEventListener("abort", onAbort);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const unwatch = source.output.watchLines(check);
  const unwatchExit = source.onExit(() => {
    finish();
    found.reject(new SessionClosedError(source.name, "ended before the expected text came"));
  });
  return found.promise;
}

/**
 * Waits for `pattern` on the screen (what a person sees): matched now, then after output (at most
 * every 25 ms), and once more when the program ends. Rejects like {@link expectOutput}; on timeout
 * the error's `recentOutput` is the last screen.
 *
 * @internal
 */
export function expectScreen(source: ExpectSource, pattern: string | RegExp, { timeoutMs, signal }: ExpectLimits): Promise<ExpectMatch> {
  const regex = typeof pattern === "string" ? undefined : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
  const matchScreen = (): ExpectMatch | undefined => {
    const text = source.output.screen().text();
    if (regex === undefined) {
      const index = text.indexOf(pattern as string);
      return index === -1 ? undefined : { match: pattern as string, groups: [], before: text.slice(0, index) };
    }
    const match = regex.exec(text);
    return match === null
      ? undefined
      : { match: match[0], groups: match.slice(1).map((group) => group ?? ""), before: text.slice(0, match.index) };
  };
  const now = matchScreen();
  if (now !== undefined) return Promise.resolve(now);
  const found = defer<ExpectMatch>();
  let throttle: NodeJS.Timeout | undefined;
  const check = () => {
    throttle = undefined;
    const match = matchScreen();
    if (match === undefined) return;
    finish();
    found.resolve(match);
  };
  const timer = setLongTimeout(() => {
    const last = source.output.lastScreenText();
    finish();
    found.reject(
      new CellTimeoutError(
        `expect(${String(pattern)}, { on: "screen" }) did not see it on the screen within ${timeoutMs} ms in session '${source.name}'; recentOutput is the last screen`,
        last,
      ),
    );
  }, timeoutMs);
  const onAbort = () => {
    finish();
    found.reject(signal?.reason);
  };
  const finish = () => {
    unwatchData();
    unwatchExit();
    if (throttle !== undefined) clearTimeout(throttle);
    timer.clear();
    signal?.removeEventListener("abort", onAbort);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const unwatchData = source.onData(() => {
    throttle ??= setTimeout(check, SCREEN_EXPECT_INTERVAL_MS);
  });
  const unwatchExit = source.onExit(() => {
    const match = matchScreen();
    finish();
    if (match !== undefined) found.resolve(match);
    else found.reject(new SessionClosedError(source.name, "ended before the expected text came on the screen"));
  });
  return found.promise;
}
