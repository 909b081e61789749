import { describeValue, invalidArgument } from "./errors.js";

/**
 * Checks an options argument: `undefined` (no options) or a plain object
 * with only `known` keys. Returns it as a record.
 */
export function optionsObject(value: unknown, known: readonly string[], what: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument(`Expected ${what} to be an object, got ${describeValue(value)}`);
  }
  // An indexed loop: options are checked once a call, in code not yet optimized (no iterator object).
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (!known.includes(key)) {
      throw invalidArgument(`Unknown ${what.replace(/^the /, "")} \`${key}\`; known: ${known.join(", ")}`);
    }
  }
  return value as Record<string, unknown>;
}

/** Checks an optional positive (or non-negative) finite number, optionally an integer up to `max`. */
export function optionalPositive(
  value: unknown,
  what: string,
  options: { integer?: boolean; allowZero?: boolean; max?: number } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    (options.allowZero === true ? value >= 0 : value > 0) &&
    (options.integer !== true || Number.isInteger(value)) &&
    (options.max === undefined || value <= options.max);
  if (!ok) {
    const kind = options.integer === true ? "integer" : "finite number";
    const sign = options.allowZero === true ? "non-negative" : "positive";
    const limit = options.max === undefined ? "" : ` of at most ${options.max}`;
    throw invalidArgument(`Expected \`${what}\` to be a ${sign} ${kind}${limit}, got ${describeValue(value)}`);
  }
  return value;
}

/** Checks a required positive number (see {@link optionalPositive}). */
export function requiredPositive(value: unknown, what: string, options: { integer?: boolean; max?: number } = {}): number {
  if (value === undefined) throw invalidArgument(`Expected \`${what}\` to be given, got \`undefined\``);
  return optionalPositive(value, what, options) as number;
}

/** Checks an optional boolean. */
/** `value` if it is a string; else ERR_INVALID_ARGUMENT naming `what`. */
export function requiredString(value: unknown, what: string): string {
  if (typeof value !== "string") throw invalidArgument(`Expected \`${what}\` to be a string, got ${describeValue(value)}`);
  return value;
}

/** `value` if it is a string, `undefined` if it is missing; else ERR_INVALID_ARGUMENT naming `what`. */
export function optionalString(value: unknown, what: string): string | undefined {
  return value === undefined ? undefined : requiredString(value, what);
}

export function optionalBoolean(value: unknown, what: string): boolean | undefined {
  if (value === undefined || typeof value === "boolean") return value;
  throw invalidArgument(`Expected \`${what}\` to be a boolean, got ${describeValue(value)}`);
}

/** Checks an optional AbortSignal. */
export function optionalSignal(value: unknown, what = "signal"): AbortSignal | undefined {
  if (value === undefined || value instanceof AbortSignal) return value;
  throw invalidArgument(`Expected \`${what}\` to be an AbortSignal, got ${describeValue(value)}`);
}

/** Largest terminal side accepted (the emulator's limit). */
export const MAX_TERMINAL_SIDE = 10_000;

/** Most cells (`cols × rows`) a terminal may have: the emulator allocates every one (10000×10000 took 1.2 GB). */
export const MAX_TERMINAL_CELLS = 1_000_000;

/** Checks that a terminal of `cols × rows` stays within {@link MAX_TERMINAL_CELLS}. */
export function assertTerminalArea(cols: number, rows: number): void {
  if (cols * rows > MAX_TERMINAL_CELLS) {
    throw invalidArgument(
      // Escaped (\u00d7 is the multiplication sign): one non-ASCII character makes V8 hold the module's whole source at two bytes a character.
      `Expected \`cols\` \u00d7 \`rows\` to be at most ${MAX_TERMINAL_CELLS} cells, got ${cols} \u00d7 ${rows} = ${cols * rows}; a terminal that large costs memory for every cell`,
    );
  }
}
