/**
 * Jest helpers for testing CLIs, REPLs and TUIs through real terminals:
 * the matchers (installed on Jest's `expect`) and {@link useTerminal}.
 *
 * @example
 * ```js
 * import { expect, test } from "@jest/globals";
 * import { useTerminal } from "agent-tty/jest";
 *
 * const terminal = useTerminal();
 * test("python adds", async () => {
 *   const py = await terminal({ command: "python3" });   // closed in afterEach, pass or fail
 *   expect(await py.run("1 + 1")).toHaveOutput("2");
 *   await expect(py).toShowOnScreen(/>>> $/m);
 * });
 * ```
 * @module
 */
import { afterEach, expect as jestExpect } from "@jest/globals";
import { type TerminalMatchers, terminalMatchers } from "./matchers.js";
import { appendToError, failureText } from "./report.js";
import { type TerminalFixtureOptions, type TerminalFunction, TerminalScope } from "./scope.js";

export { terminalMatchers } from "./matchers.js";
export type {
  CellResultMatchers,
  MatcherContext,
  MatcherResult,
  SessionMatchers,
  TerminalMatchers,
  ToShowOnScreenOptions,
} from "./matchers.js";
export type { TerminalFixtureOptions, TerminalFunction } from "./scope.js";

jestExpect.extend(terminalMatchers);

/** The test jest-circus is running, with the errors it collected so far (read from its state; undefined elsewhere). */
function runningTest(): { errors: unknown[] } | undefined {
  const key = Object.getOwnPropertySymbols(globalThis).find((symbol) => symbol.description === "JEST_STATE_SYMBOL");
  if (key === undefined) return undefined;
  const state = (globalThis as Record<symbol, unknown>)[key] as { currentlyRunningTest?: { errors?: unknown } | null } | undefined;
  const errors = state?.currentlyRunningTest?.errors;
  return Array.isArray(errors) ? { errors } : undefined;
}

/**
 * Gives the tests of this file (or `describe` block) a `terminal(options)`
 * function: `Session.spawn` whose sessions are closed in `afterEach`, pass
 * or fail, their processes gone before the next test starts. When a test
 * fails, its error message carries each session's last screen and the
 * tail of its transcript (and, with `recordOnFailure`, its recording's
 * path). Call it at the top of a file or `describe` block, not inside a
 * test.
 *
 * @example
 * ```js
 * const terminal = useTerminal({ recordOnFailure: "test-results/casts" });
 * ```
 */
export function useTerminal(options: TerminalFixtureOptions = {}): TerminalFunction {
  let scope: TerminalScope | undefined;
  afterEach(async () => {
    const current = scope;
    scope = undefined;
    if (current === undefined) return;
    const test = runningTest();
    // circus keeps an error as is, or as [error, asyncError].
    const errors = (test?.errors ?? []).map((entry) => (Array.isArray(entry) ? entry[0] : entry));
    const failed = errors.length > 0;
    const report = failed && current.sessions.length > 0 ? current.report() : undefined;
    const kept = await current.finish(failed);
    if (report !== undefined) for (const error of errors) appendToError(error, failureText(report, kept));
  });
  return (sessionOptions) => {
    scope ??= new TerminalScope(options, jestExpect.getState().currentTestName ?? "test");
    return scope.spawn(sessionOptions);
  };
}

// Jest 30's `expect` (the `expect` package) and @types/jest's global `expect` learn the matchers.
declare module "expect" {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface Matchers<R extends void | Promise<void>, T = unknown> extends TerminalMatchers<R> {}
}
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars, @typescript-eslint/no-empty-object-type
    interface Matchers<R, T = {}> extends TerminalMatchers<R> {}
  }
}
