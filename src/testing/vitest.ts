/**
 * Vitest fixtures for testing CLIs, REPLs and TUIs through real terminals.
 *
 * @example
 * ```ts
 * import { test, expect } from "agent-tty/vitest";
 *
 * test("python adds", async ({ terminal }) => {
 *   const py = await terminal({ command: "python3" });   // closed after the test, pass or fail
 *   expect(await py.run("1 + 1")).toHaveOutput("2");
 *   await expect(py).toShowOnScreen(/>>> $/m);
 * });
 * ```
 * @module
 */
import { expect as vitestExpect, test as vitestTest } from "vitest";
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

vitestExpect.extend(terminalMatchers);

/** Vitest's own assertion for a value of type `T` (`Assertion<T>` in Vitest 4, `Assertion<void, T>` in Vitest 5). */
export type VitestAssertion<T> = ReturnType<typeof vitestExpect<T>>;

/** Vitest's assertion with agent-tty's matchers, `.not` included. */
export type TerminalAssertion<T> = VitestAssertion<T> & TerminalMatchers & { readonly not: VitestAssertion<T>["not"] & TerminalMatchers };

/**
 * Vitest's `expect`, typed with agent-tty's matchers whatever the Vitest
 * version (4 or 5), with no declaration to add. The matchers are installed
 * on Vitest's global `expect` too.
 */
export interface TerminalExpect extends Omit<typeof vitestExpect, never> {
  <T>(actual: T, message?: string): TerminalAssertion<T>;
}

/** Vitest's `expect` with `toHaveOutput`, `toHaveExitCode`, `toHaveStatus` and `toShowOnScreen`. */
export const expect: TerminalExpect = vitestExpect as TerminalExpect;

/** The fixtures {@link test} adds to Vitest's test context. */
export interface TerminalFixtures {
  /**
   * Spawns a session (`Session.spawn`) that lives exactly as long as the
   * test: closed when it ends, pass or fail, its processes gone before the
   * next test starts. When the test fails, its error message carries each
   * session's last screen and the tail of its transcript (and, with
   * `recordOnFailure`, the path of its recording).
   */
  terminal: TerminalFunction;
  /**
   * Options of {@link TerminalFixtures.terminal}; override them for a file
   * or a suite with `test.override({ terminalOptions: { … } })` (Vitest 4:
   * also `test.scoped`), or make a test with {@link createTerminalTest}.
   */
  terminalOptions: TerminalFixtureOptions;
}

interface FailedTask {
  readonly name?: string;
  readonly result?: { state?: string; errors?: unknown[] };
}

/**
 * Makes a Vitest `test` with the `terminal` fixture, using `options` as
 * the default `terminalOptions`.
 *
 * @example
 * ```ts
 * export const test = createTerminalTest({ recordOnFailure: "test-results/casts", defaults: { cols: 100, rows: 30 } });
 * ```
 */
export function createTerminalTest(options: TerminalFixtureOptions = {}) {
  return vitestTest.extend<TerminalFixtures>({
    terminalOptions: [options, { injected: false }] as unknown as TerminalFixtureOptions,
    terminal: async ({ task, terminalOptions }, use) => {
      const scope = new TerminalScope(terminalOptions, task.name);
      try {
        await use(scope.spawn);
      } finally {
        const failedTask = task as FailedTask;
        const failed = failedTask.result?.state === "fail";
        const report = failed && scope.sessions.length > 0 ? scope.report() : undefined;
        const kept = await scope.finish(failed);
        if (report !== undefined) for (const error of failedTask.result?.errors ?? []) appendToError(error, failureText(report, kept));
      }
    },
  });
}

/**
 * Vitest's `test` with the {@link TerminalFixtures.terminal} fixture.
 *
 * @example
 * ```ts
 * test("sqlite answers", async ({ terminal }) => {
 *   const db = await terminal({ command: "sqlite3" });
 *   expect(await db.run("select 6 * 7;")).toHaveOutput("42");
 * });
 * ```
 */
export const test = createTerminalTest();

/** Alias of {@link test}. */
export const it = test;

// Vitest 4's assertions extend Jest's global `jest.Matchers<R, T>`: declaring the matchers there types
// Vitest's own `expect` too. (Vitest 5 dropped that link: import `expect` from here, or add
// `agent-tty/vitest5-matchers` to your types.)
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars, @typescript-eslint/no-empty-object-type
    interface Matchers<R, T = {}> extends TerminalMatchers<R> {}
  }
}
