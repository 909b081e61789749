import type { CellResult, CellStatus, Session } from "../index.js";
import { describeValue, invalidArgument } from "../errors.js";

/** Options of `toShowOnScreen`. */
export interface ToShowOnScreenOptions {
  /**
   * How long to wait for the screen to show the pattern (with `.not`: to
   * stop showing it).
   * @default 5000
   */
  readonly timeoutMs?: number;
}

/**
 * The matchers on a `CellResult` (what `run()` and `wait()` return).
 * `R` is what a matcher returns in your test framework (`void`).
 */
export interface CellResultMatchers<R = void> {
  /**
   * The cell's clean `output` equals `expected` (a string), or matches it
   * (a RegExp).
   * @example expect(await py.run("1 + 1")).toHaveOutput("2")
   */
  toHaveOutput(expected: string | RegExp): R;
  /** The cell's `exitCode` is `code` (`null` where the detector cannot know it). */
  toHaveExitCode(code: number | null): R;
  /** The cell's `status` is `status` (`"done"`, `"timeout"`, `"awaiting_input"`…). */
  toHaveStatus(status: CellStatus): R;
}

/** The matcher on a `Session`. */
export interface SessionMatchers {
  /**
   * Waits until the session's `screen()` shows `pattern` (a substring, or a
   * RegExp matched against the whole screen, rows `\n`-joined; the spaces
   * before the cursor count, so `/>>> $/m` matches a prompt); fails
   * after `timeoutMs` with the last screen. With `.not`, waits until it
   * no longer shows it. Async: `await` it.
   * @example await expect(py).toShowOnScreen(/>>> $/m)
   */
  toShowOnScreen(pattern: string | RegExp, options?: ToShowOnScreenOptions): Promise<void>;
}

/** Every matcher agent-tty adds. */
export interface TerminalMatchers<R = void> extends CellResultMatchers<R>, SessionMatchers {}

/** What a matcher returns to Vitest and Jest. */
export interface MatcherResult {
  readonly pass: boolean;
  readonly message: () => string;
}

/** The part of a Vitest or Jest matcher context the matchers use. */
export interface MatcherContext {
  readonly isNot?: boolean;
}

const DEFAULT_SCREEN_TIMEOUT_MS = 5000;
/** The longest output quoted in a failure message; the tail is kept. */
const MAX_QUOTED_CHARS = 4000;

function isCellResult(value: unknown): value is CellResult {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as CellResult).status === "string" &&
    typeof (value as CellResult).output === "string"
  );
}

function isSession(value: unknown): value is Session {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Session).screen === "function" &&
    typeof (value as Session).on === "function"
  );
}

function notA(what: string, matcher: string, received: unknown): MatcherResult {
  return {
    pass: false,
    message: () => `${matcher}: expected ${what}, got ${describeValue(received)}`,
  };
}

/** Quotes multi-line text, one row per line behind a bar, cut to its tail. */
export function quote(text: string, maxChars = MAX_QUOTED_CHARS): string {
  const cut = text.length > maxChars ? `[… ${text.length - maxChars} characters before …]\n${text.slice(-maxChars)}` : text;
  return cut === ""
    ? "  │ (empty)"
    : cut
        .split("\n")
        .map((line) => `  │ ${line}`)
        .join("\n");
}

function describeCell(result: CellResult): string {
  const exit = result.exitCode === null ? "" : `, exit code ${result.exitCode}`;
  return `cell ${result.cellId} (\`${result.code}\`): status ${result.status}${exit}\noutput:\n${quote(result.output)}`;
}

function show(pattern: string | RegExp): string {
  return typeof pattern === "string" ? JSON.stringify(pattern) : String(pattern);
}

function cellMatcher(
  name: string,
  received: unknown,
  isNot: boolean,
  check: (result: CellResult) => boolean,
  expected: string,
): MatcherResult {
  if (!isCellResult(received)) return notA("a CellResult (what run() and wait() resolve with)", name, received);
  const pass = check(received);
  return {
    pass,
    message: () => `expected the cell ${isNot ? "not " : ""}to ${expected}\n${describeCell(received)}`,
  };
}

/** `toHaveOutput`, written for any framework's matcher context. */
export function toHaveOutput(this: MatcherContext | undefined, received: unknown, expected: string | RegExp): MatcherResult {
  if (typeof expected !== "string" && !(expected instanceof RegExp))
    throw invalidArgument(`toHaveOutput: expected a string or a RegExp, got ${describeValue(expected)}`);
  const matches = (output: string) =>
    typeof expected === "string" ? output === expected : new RegExp(expected.source, expected.flags.replace(/[gy]/g, "")).test(output);
  return cellMatcher(
    "toHaveOutput",
    received,
    this?.isNot === true,
    (result) => matches(result.output),
    `have output ${typeof expected === "string" ? "equal to" : "matching"} ${show(expected)}`,
  );
}

/** `toHaveExitCode`, written for any framework's matcher context. */
export function toHaveExitCode(this: MatcherContext | undefined, received: unknown, code: number | null): MatcherResult {
  if (code !== null && !Number.isInteger(code))
    throw invalidArgument(`toHaveExitCode: expected an integer or null, got ${describeValue(code)}`);
  return cellMatcher("toHaveExitCode", received, this?.isNot === true, (result) => result.exitCode === code, `have exit code ${code}`);
}

/** `toHaveStatus`, written for any framework's matcher context. */
export function toHaveStatus(this: MatcherContext | undefined, received: unknown, status: CellStatus): MatcherResult {
  if (typeof status !== "string")
    throw invalidArgument(`toHaveStatus: expected a status name such as "done", got ${describeValue(status)}`);
  return cellMatcher(
    "toHaveStatus",
    received,
    this?.isNot === true,
    (result) => result.status === status,
    `have status ${JSON.stringify(status)}`,
  );
}

/** Without trailing blank rows: the rest of a screen says nothing. */
export function visibleRows(screen: string): string {
  return screen.replace(/\n+$/, "");
}

/**
 * The screen with the cursor's row kept up to the cursor: the spaces a
 * person sees before the cursor (`>>> ` with the cursor after the space)
 * count, although `screen()` trims them.
 */
function withCursorSpaces(screen: string, cursor: { readonly x: number; readonly y: number }): string {
  const rows = screen.split("\n");
  const row = rows[cursor.y];
  if (row === undefined || row.length >= cursor.x) return screen;
  rows[cursor.y] = row.padEnd(cursor.x, " ");
  return rows.join("\n");
}

/**
 * `toShowOnScreen`, written for any framework's matcher context: checks the
 * screen each time the program prints, until it matches (or, with `.not`,
 * stops matching) or `timeoutMs` passes.
 */
export async function toShowOnScreen(
  this: MatcherContext | undefined,
  received: unknown,
  pattern: string | RegExp,
  options: ToShowOnScreenOptions = {},
): Promise<MatcherResult> {
  if (!isSession(received)) return notA("a Session (what terminal() and Session.spawn() resolve with)", "toShowOnScreen", received);
  if (typeof pattern !== "string" && !(pattern instanceof RegExp))
    throw invalidArgument(`toShowOnScreen: expected a string or a RegExp, got ${describeValue(pattern)}`);
  const timeoutMs = options.timeoutMs ?? DEFAULT_SCREEN_TIMEOUT_MS;
  if (typeof timeoutMs !== "number" || !(timeoutMs >= 0) || !Number.isFinite(timeoutMs)) {
    throw invalidArgument(`toShowOnScreen: expected \`timeoutMs\` to be a non-negative finite number, got ${describeValue(timeoutMs)}`);
  }
  const isNot = this?.isNot === true;
  const regex = typeof pattern === "string" ? undefined : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
  let last = "";
  let closed: string | undefined;
  const shows = (): boolean => {
    let text: string;
    try {
      last = received.screen();
      text = withCursorSpaces(last, received.cursor());
    } catch (error) {
      closed = error instanceof Error ? error.message : String(error);
      return false;
    }
    return regex === undefined ? text.includes(pattern as string) : regex.test(text);
  };
  const started = performance.now();
  let matched = shows();
  if (matched === isNot && closed === undefined) {
    matched = await new Promise<boolean>((resolve) => {
      let scheduled = false;
      const finish = (value: boolean) => {
        clearTimeout(timer);
        clearInterval(ticker);
        received.off("data", onData);
        received.off("exit", onExit);
        resolve(value);
      };
      const check = () => {
        scheduled = false;
        const now = shows();
        if (now !== isNot || closed !== undefined) finish(now);
      };
      // Checked after each burst of output (once per turn of the event loop), not per chunk.
      const onData = () => {
        if (scheduled) return;
        scheduled = true;
        setImmediate(check);
      };
      const onExit = () => setImmediate(() => finish(shows()));
      received.on("data", onData);
      received.on("exit", onExit);
      // A screen can change without output (a resize): look again now and then too.
      const ticker = setInterval(check, 250);
      const timer = setTimeout(() => finish(shows()), timeoutMs);
    });
  }
  const waited = Math.round(performance.now() - started);
  const name = received.name;
  return {
    pass: matched,
    message: () => {
      const what = `expected session '${name}' ${isNot ? "to stop showing" : "to show"} ${show(pattern)} on screen`;
      const why = closed !== undefined ? `, but it is closed (${closed})` : ` within ${timeoutMs} ms (waited ${waited} ms)`;
      return `${what}${why}\nlast screen:\n${quote(visibleRows(last))}`;
    },
  };
}

/**
 * The matchers as an object for `expect.extend()` of Vitest or Jest
 * (`agent-tty/vitest` and `agent-tty/jest` install them for you).
 *
 * @example
 * ```ts
 * import { expect } from "vitest";
 * import { terminalMatchers } from "agent-tty/vitest";
 * expect.extend(terminalMatchers);
 * ```
 */
export const terminalMatchers = Object.freeze({ toHaveOutput, toHaveExitCode, toHaveStatus, toShowOnScreen });
