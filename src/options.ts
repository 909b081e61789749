import { describeValue, invalidArgument } from "./errors.js";
import {
  assertTerminalArea,
  MAX_TERMINAL_SIDE,
  optionalBoolean,
  optionalPositive,
  optionalSignal,
  optionsObject,
  optionalString,
} from "./validate.js";
import { MAX_TIMER_MS } from "./internal/long-timeout.js";
import type { FrameDetector } from "./detect/types.js";
import { isValidSessionName, SESSION_NAME_RULE } from "./names.js";

/** Options of {@link Session.spawn}. Every field is optional. */
export interface SessionOptions {
  /**
   * The program to run, looked up on `PATH`.
   * @default "bash"
   */
  readonly command?: string;
  /** @default [] */
  readonly args?: readonly string[];
  /** @default process.cwd() */
  readonly cwd?: string;
  /** Merged over `process.env` (see `extendEnv`); given values win. `undefined` removes a variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Start from `process.env`. With `false`, the program sees only `env`
   * (plus `TERM`, a UTF-8 locale and the `hardenEnv` variables).
   * @default true
   */
  readonly extendEnv?: boolean;
  /**
   * Terminal width; wide so long lines do not wrap. At most 10000, and
   * `cols × rows` at most 1000000 (the emulator keeps every cell).
   * @default 200
   */
  readonly cols?: number;
  /** Terminal height; see `cols` for the limits. @default 50 */
  readonly rows?: number;
  /** `[A-Za-z0-9_.-]+`, not only dots, never `..`. Shown in errors and events. @default the command's name */
  readonly name?: string;
  /** Free text shown in listings: what the session is for. */
  readonly label?: string;
  /** Free text shown in listings. */
  readonly description?: string;
  /**
   * How the end of a cell is found. `"auto"` picks shell integration for
   * shells, a prompt detector for known REPLs and repeat-enter otherwise.
   * @default "auto"
   */
  readonly detector?: "auto" | FrameDetector;
  /**
   * Default per-cell timeout of `run()` and `fire()`.
   * @default 30000
   */
  readonly timeoutMs?: number;
  /**
   * How long spawn waits for the program's first prompt.
   * @default 10000
   */
  readonly readyTimeoutMs?: number;
  /**
   * Cap of `CellResult.output` (and `raw`) in UTF-8 bytes; head and tail are kept.
   * @default 1048576
   */
  readonly maxOutputBytes?: number;
  /**
   * Pagers off (`PAGER`/`GIT_PAGER=cat`), no git editor or credential
   * prompts, `PYTHON_BASIC_REPL=1`. Values given in `env` win.
   * @default true
   */
  readonly hardenEnv?: boolean;
  /**
   * How long `close()` waits after SIGHUP before SIGKILL.
   * @default 2000
   */
  readonly closeGraceMs?: number;
  /**
   * Fork-bomb guard: while a cell runs, the processes of the terminal's
   * session are counted (Linux `/proc`, every half second); past this many
   * the whole session is stopped and killed, and the cell settles `"exited"`
   * with a note saying why. `Infinity` turns the guard off. A process that
   * leaves the session on purpose (`setsid`, a daemon) is not counted, and
   * not killed by `close()` either; an OS limit (`ulimit -u`, a cgroup's
   * `pids.max`) is the stronger guard where you can set one.
   * @default 2048
   */
  readonly maxProcesses?: number;
  /**
   * Record the session to this asciicast v2 file from its start (see
   * `session.record()`); the file is complete once the session is closed.
   */
  readonly record?: string;
}

/** {@link SessionOptions} with every default applied. */
export interface NormalizedSessionOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly extendEnv: boolean;
  readonly cols: number;
  readonly rows: number;
  readonly name: string;
  readonly label: string | undefined;
  readonly description: string | undefined;
  readonly detector: "auto" | FrameDetector;
  readonly timeoutMs: number;
  readonly readyTimeoutMs: number;
  readonly maxOutputBytes: number;
  readonly hardenEnv: boolean;
  readonly closeGraceMs: number;
  readonly maxProcesses: number;
  readonly record: string | undefined;
}

/** The defaults of {@link SessionOptions}, in one place. */
export const SESSION_DEFAULTS = Object.freeze({
  command: "bash",
  args: Object.freeze([] as string[]),
  cols: 200,
  rows: 50,
  detector: "auto" as const,
  timeoutMs: 30_000,
  readyTimeoutMs: 10_000,
  maxOutputBytes: 1 << 20,
  hardenEnv: true,
  closeGraceMs: 2_000,
  maxProcesses: 2048,
});

/** The checks of the numeric options, made once (not an object per check per spawn). */
const TERMINAL_SIDE = Object.freeze({ integer: true, max: MAX_TERMINAL_SIDE });
const TIMER = Object.freeze({ max: MAX_TIMER_MS });
const TIMER_OR_ZERO = Object.freeze({ allowZero: true, max: MAX_TIMER_MS });
const INTEGER = Object.freeze({ integer: true });

const KNOWN_OPTIONS: readonly string[] = [
  "command",
  "args",
  "cwd",
  "env",
  "extendEnv",
  "cols",
  "rows",
  "name",
  "label",
  "description",
  "detector",
  "timeoutMs",
  "readyTimeoutMs",
  "maxOutputBytes",
  "hardenEnv",
  "closeGraceMs",
  "maxProcesses",
  "record",
];

/** Throws unless `name` is a valid session name. */
export function assertSessionName(name: unknown, what = "name"): asserts name is string {
  if (!isValidSessionName(name)) {
    throw invalidArgument(`Expected \`${what}\` to match ${SESSION_NAME_RULE}, got ${describeValue(name)}`);
  }
}

function isDetector(value: unknown): value is FrameDetector {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as FrameDetector).name === "string" &&
    typeof (value as FrameDetector).feed === "function"
  );
}

/** Applies defaults and validates; throws `ERR_INVALID_ARGUMENT` on the first bad option. */
export function normalizeSessionOptions(options: unknown): NormalizedSessionOptions {
  const given = optionsObject(options, KNOWN_OPTIONS, "spawn options");
  const command = optionalString(given["command"], "command") ?? SESSION_DEFAULTS.command;
  if (command.trim() === "") throw invalidArgument('Expected `command` to be a non-empty string, got `""` (string)');
  const args = given["args"] ?? SESSION_DEFAULTS.args;
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    throw invalidArgument(`Expected \`args\` to be an array of strings, got ${describeValue(args)}`);
  }
  const env = given["env"] ?? {};
  if (typeof env !== "object" || env === null || Array.isArray(env)) {
    throw invalidArgument(`Expected \`env\` to be an object of strings, got ${describeValue(env)}`);
  }
  // Indexed loops over the names: the spawn path runs once a session, in code not yet optimized,
  // where each step of an entries iterator is an object and a pair.
  const envKeys = Object.keys(env);
  for (let index = 0; index < envKeys.length; index++) {
    const key = envKeys[index] as string;
    const value = (env as Record<string, unknown>)[key] as string | undefined;
    if (key === "" || key.includes("=") || key.includes("\0")) {
      throw invalidArgument(
        `Expected every \`env\` name to be non-empty, without "=" or NUL, got ${JSON.stringify(key)}: the program would see a different variable`,
      );
    }
    if (value !== undefined && typeof value !== "string") {
      throw invalidArgument(`Expected \`env.${key}\` to be a string, got ${describeValue(value)}`);
    }
    if (value?.includes("\0") === true) {
      throw invalidArgument(`Expected \`env.${key}\` without NUL characters: the program would see it cut at the first NUL`);
    }
  }
  const detector = given["detector"] ?? SESSION_DEFAULTS.detector;
  if (detector !== "auto" && !isDetector(detector)) {
    throw invalidArgument(
      `Expected \`detector\` to be "auto" or a FrameDetector (an object with \`name\` and \`feed\`), got ${describeValue(detector)}`,
    );
  }
  const name = given["name"] ?? defaultName(command);
  assertSessionName(name);
  const hardenEnv = optionalBoolean(given["hardenEnv"], "hardenEnv") ?? SESSION_DEFAULTS.hardenEnv;
  const cols = optionalPositive(given["cols"], "cols", TERMINAL_SIDE) ?? SESSION_DEFAULTS.cols;
  const rows = optionalPositive(given["rows"], "rows", TERMINAL_SIDE) ?? SESSION_DEFAULTS.rows;
  assertTerminalArea(cols, rows);
  return {
    command,
    args: [...(args as string[])],
    cwd: optionalString(given["cwd"], "cwd") ?? process.cwd(),
    env: env as Record<string, string | undefined>,
    extendEnv: optionalBoolean(given["extendEnv"], "extendEnv") ?? true,
    cols,
    rows,
    name,
    label: optionalString(given["label"], "label"),
    description: optionalString(given["description"], "description"),
    detector,
    timeoutMs: optionalPositive(given["timeoutMs"], "timeoutMs") ?? SESSION_DEFAULTS.timeoutMs,
    readyTimeoutMs: optionalPositive(given["readyTimeoutMs"], "readyTimeoutMs", TIMER) ?? SESSION_DEFAULTS.readyTimeoutMs,
    maxOutputBytes: optionalPositive(given["maxOutputBytes"], "maxOutputBytes", INTEGER) ?? SESSION_DEFAULTS.maxOutputBytes,
    hardenEnv,
    closeGraceMs: optionalPositive(given["closeGraceMs"], "closeGraceMs", TIMER_OR_ZERO) ?? SESSION_DEFAULTS.closeGraceMs,
    maxProcesses:
      given["maxProcesses"] === Infinity
        ? Infinity
        : (optionalPositive(given["maxProcesses"], "maxProcesses", INTEGER) ?? SESSION_DEFAULTS.maxProcesses),
    record: recordPath(given["record"]),
  };
}

function recordPath(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "" || value.includes("\0")) {
    throw invalidArgument(`Expected \`record\` to be the path of the .cast file to write, got ${describeValue(value)}`);
  }
  return value;
}

/** The last command named and its name: sessions mostly start one command, named again and again. */
let lastNamed: { readonly command: string; readonly name: string } | undefined;

function defaultName(command: string): string {
  if (lastNamed?.command !== command) lastNamed = { command, name: nameOf(command) };
  return lastNamed.name;
}

function nameOf(command: string): string {
  const base = command.split("/").pop() ?? "session";
  const cleaned = base.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/\.{2,}/g, ".");
  return cleaned === "" || /^\.+$/.test(cleaned) ? "session" : cleaned.slice(0, 64);
}

/** Options of one cell: `run()`, `fire()`. */
export interface CellOptions {
  /** Overrides the session's `timeoutMs` for this cell. */
  readonly timeoutMs?: number;
  /** Aborting interrupts the cell (Ctrl-C) and settles it `"interrupted"`. */
  readonly signal?: AbortSignal;
  /**
   * `"keep"`: on timeout the session keeps the lock (`state === "timed_out"`)
   * until `interrupt()` or the frame ends by itself. `"interrupt"`: send
   * Ctrl-C and release.
   * @default "keep"
   */
  readonly onTimeout?: "keep" | "interrupt";
  /** Wait for the lock instead of rejecting with `SessionBusyError`. @default false */
  readonly queue?: boolean;
  /** `run()` also settles when the program waits for input (`"awaiting_input"`). @default false */
  readonly untilInput?: boolean;
}

const CELL_OPTIONS: readonly string[] = ["timeoutMs", "signal", "onTimeout", "queue", "untilInput"];

/** A cell's options once checked and given the session's defaults. */
export interface CellSettings {
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly onTimeout: "keep" | "interrupt";
  readonly queue: boolean;
  readonly untilInput: boolean;
}

/** Validates cell options; throws `ERR_INVALID_ARGUMENT`. */
export function normalizeCellOptions(options: unknown, defaultTimeoutMs: number): CellSettings {
  if (options === undefined) return defaultCellOptions(defaultTimeoutMs);
  const given = optionsObject(options, CELL_OPTIONS, "cell options");
  const signal = optionalSignal(given["signal"]);
  const onTimeout = given["onTimeout"] ?? "keep";
  if (onTimeout !== "keep" && onTimeout !== "interrupt") {
    throw invalidArgument(`Expected \`onTimeout\` to be "keep" or "interrupt", got ${describeValue(onTimeout)}`);
  }
  return {
    timeoutMs: optionalPositive(given["timeoutMs"], "timeoutMs") ?? defaultTimeoutMs,
    signal,
    onTimeout: onTimeout as "keep" | "interrupt",
    queue: optionalBoolean(given["queue"], "queue") ?? false,
    untilInput: optionalBoolean(given["untilInput"], "untilInput") ?? false,
  };
}

/** The options of a cell given none (most cells): one frozen object per default timeout, not one per cell. */
let lastDefaults: CellSettings | undefined;
function defaultCellOptions(timeoutMs: number): CellSettings {
  if (lastDefaults?.timeoutMs !== timeoutMs) {
    lastDefaults = Object.freeze({ timeoutMs, signal: undefined, onTimeout: "keep" as const, queue: false, untilInput: false });
  }
  return lastDefaults;
}

/** Any control character (line ends included): code without one is already normalized. */
const ANY_CONTROL = /[\x00-\x1f\x7f]/;

/** Validates the code of a cell. */
export function normalizeCode(code: unknown): string {
  if (typeof code !== "string") throw invalidArgument(`Expected the cell's code to be a string, got ${describeValue(code)}`);
  // One line of text (most cells): nothing to change, only emptiness to check.
  if (!ANY_CONTROL.test(code) && code.trim() !== "") return code;
  return normalizeCodeLines(code);
}

/** {@link normalizeCode} for code with line ends or control characters, or none but blanks (apart: compiled only when first needed). */
function normalizeCodeLines(code: string): string {
  const normalized = code.replace(/\r\n?/g, "\n").replace(/\n+$/, "");
  if (normalized.trim() === "") throw invalidArgument('Expected the cell\'s code to be non-empty; use press("enter") to send a bare Enter');
  // The terminal acts on these (Ctrl-C interrupts, Ctrl-S freezes output, ESC could end a paste):
  // they cannot be typed as text. Keys go through press() or write().
  const control = /[\x00-\x08\x0b-\x1f\x7f]/.exec(normalized);
  if (control !== null) {
    const code = control[0].charCodeAt(0);
    throw invalidArgument(
      `Expected the cell's code to be text without control characters, got U+${code.toString(16).toUpperCase().padStart(4, "0")} at index ${control.index}; ` +
        'send keys such as Ctrl-C with press("ctrl+c") or raw bytes with write()',
    );
  }
  return normalized;
}
