import { type AgentTtyError, describeValue, invalidArgument } from "../errors.js";

/** Terminal modes that change what a key sends. */
export interface KeyEncodingMode {
  /** DECCKM (`CSI ? 1 h`): arrows, Home and End send SS3 (`ESC O A`) instead of CSI (`ESC [ A`). */
  readonly applicationCursor: boolean;
}

/**
 * The documented key names, in the order error messages list them. Each one
 * is accepted by {@link encodeKeys}; names are case-insensitive. Besides
 * these, `encodeKeys` accepts any single character (sent as is) and the
 * modifiers `ctrl+`, `alt+` and `shift+` in front of a key.
 */
export const KEY_NAMES: readonly string[] = Object.freeze([
  "enter",
  "tab",
  "shift+tab",
  "esc",
  "escape",
  "backspace",
  "delete",
  "insert",
  "up",
  "down",
  "left",
  "right",
  "home",
  "end",
  "pageup",
  "pagedown",
  ...Array.from({ length: 12 }, (_, index) => `f${index + 1}`),
  "space",
  "ctrl+space",
]);

const ESC = "\x1b";

/**
 * Keys xterm sends as a CSI/SS3 sequence, which take modifiers as a
 * parameter (`ESC [ 1 ; 5 A` is ctrl+up). `final` keys end in a letter,
 * `tilde` keys in `~` after a number.
 */
type SequenceKey =
  | { readonly kind: "cursor"; readonly final: string }
  | { readonly kind: "ss3"; readonly final: string }
  | { readonly kind: "tilde"; readonly number: number };

const SEQUENCE_KEYS: ReadonlyMap<string, SequenceKey> = new Map<string, SequenceKey>([
  ["up", { kind: "cursor", final: "A" }],
  ["down", { kind: "cursor", final: "B" }],
  ["right", { kind: "cursor", final: "C" }],
  ["left", { kind: "cursor", final: "D" }],
  ["home", { kind: "cursor", final: "H" }],
  ["end", { kind: "cursor", final: "F" }],
  ["insert", { kind: "tilde", number: 2 }],
  ["delete", { kind: "tilde", number: 3 }],
  ["pageup", { kind: "tilde", number: 5 }],
  ["pagedown", { kind: "tilde", number: 6 }],
  ["f1", { kind: "ss3", final: "P" }],
  ["f2", { kind: "ss3", final: "Q" }],
  ["f3", { kind: "ss3", final: "R" }],
  ["f4", { kind: "ss3", final: "S" }],
  ["f5", { kind: "tilde", number: 15 }],
  ["f6", { kind: "tilde", number: 17 }],
  ["f7", { kind: "tilde", number: 18 }],
  ["f8", { kind: "tilde", number: 19 }],
  ["f9", { kind: "tilde", number: 20 }],
  ["f10", { kind: "tilde", number: 21 }],
  ["f11", { kind: "tilde", number: 23 }],
  ["f12", { kind: "tilde", number: 24 }],
]);

/** Keys that are one plain byte; `alt+` prefixes them with ESC. */
const PLAIN_KEYS: ReadonlyMap<string, string> = new Map([
  ["enter", "\r"],
  ["tab", "\t"],
  ["esc", ESC],
  ["escape", ESC],
  ["backspace", "\x7f"],
  ["space", " "],
]);

/** `ctrl+` applied to something other than a letter. */
const CTRL_SPECIAL: ReadonlyMap<string, string> = new Map([
  ["@", "\x00"],
  ["space", "\x00"],
  ["[", ESC],
  ["\\", "\x1c"],
  ["]", "\x1d"],
  ["^", "\x1e"],
  ["_", "\x1f"],
  ["?", "\x7f"],
  ["backspace", "\x08"],
]);

interface Modifiers {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

const MODIFIER_PREFIX = /^(ctrl|control|alt|meta|shift)\+/i;

/**
 * Encodes named keys as the bytes xterm sends for them, concatenated.
 *
 * - Named keys: `enter` (`\r`), `tab`, `shift+tab` (`ESC [ Z`), `esc` /
 *   `escape`, `backspace` (DEL, 0x7f), `delete`, `insert`, `up` `down`
 *   `left` `right`, `home` `end`, `pageup` `pagedown`, `f1`…`f12`, `space`.
 *   Arrows, Home and End follow application cursor mode (`ESC O A` when it is
 *   on, `ESC [ A` otherwise).
 * - `ctrl+<letter>` sends the control character (`ctrl+c` is ETX, 0x03);
 *   also `ctrl+[` `ctrl+\` `ctrl+]` `ctrl+^` `ctrl+_` `ctrl+@` `ctrl+space`
 *   `ctrl+?` and `ctrl+backspace` (BS, 0x08).
 * - `alt+<key>` sends ESC followed by the key (`alt+b`, `alt+enter`,
 *   `alt+backspace`, `alt+ctrl+x`).
 * - On keys xterm encodes as sequences (arrows, home/end, insert/delete,
 *   page keys, f-keys), any of `shift+` `alt+` `ctrl+` is sent as xterm's
 *   modifier parameter: `ctrl+left` is `ESC [ 1 ; 5 D`, `alt+up` is
 *   `ESC [ 1 ; 3 A`, `shift+f5` is `ESC [ 15 ; 2 ~`.
 * - `shift+<letter>` is the upper-case letter.
 * - Any other single character (`"a"`, `"A"`, `"/"`, `"é"`) is sent as is;
 *   a lone `"+"` too.
 *
 * Names are case-insensitive, except a single character, which is sent
 * exactly as given.
 *
 * @param names - The keys, in order.
 * @param mode - The terminal's current key modes.
 * @returns The bytes to write to the terminal.
 * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` when a name is not a key;
 * nothing is encoded then, and the message lists the valid names.
 *
 * @example
 * ```ts
 * encodeKeys(["ctrl+c"], { applicationCursor: false }); // "\x03"
 * encodeKeys(["up", "enter"], { applicationCursor: true }); // "\x1bOA\r"
 * ```
 */
export function encodeKeys(names: readonly string[], mode: KeyEncodingMode): string {
  if (!Array.isArray(names)) {
    throw invalidArgument(`Expected key names to be an array of strings, got ${describeValue(names)}`);
  }
  let bytes = "";
  for (const name of names) bytes += encodeKey(name, mode);
  return bytes;
}

function encodeKey(name: unknown, mode: KeyEncodingMode): string {
  if (typeof name !== "string") {
    throw invalidArgument(`Expected a key name to be a string, got ${describeValue(name)}`);
  }
  const encoded = tryEncodeKey(name, mode);
  if (encoded === undefined) throw unknownKey(name);
  return encoded;
}

function tryEncodeKey(name: string, mode: KeyEncodingMode): string | undefined {
  if (isSingleCharacter(name)) return name;
  const modifiers: Modifiers = { ctrl: false, alt: false, shift: false };
  let rest = name;
  for (let match = MODIFIER_PREFIX.exec(rest); match !== null; match = MODIFIER_PREFIX.exec(rest)) {
    const modifier = (match[1] ?? "").toLowerCase();
    if (modifier === "ctrl" || modifier === "control") modifiers.ctrl = true;
    else if (modifier === "alt" || modifier === "meta") modifiers.alt = true;
    else modifiers.shift = true;
    rest = rest.slice(match[0].length);
  }
  if (rest === "") return undefined;
  const base = isSingleCharacter(rest) ? rest : rest.toLowerCase();

  const sequence = SEQUENCE_KEYS.get(base);
  if (sequence !== undefined) return encodeSequenceKey(sequence, modifiers, mode);

  const prefix = modifiers.alt ? ESC : "";
  if (base === "tab" && modifiers.shift && !modifiers.ctrl) return `${prefix}${ESC}[Z`;
  if (modifiers.shift) {
    if (modifiers.ctrl || !/^[a-z]$/i.test(base)) return undefined;
    return prefix + base.toUpperCase();
  }
  if (modifiers.ctrl) {
    const control = /^[a-z]$/i.test(base) ? String.fromCharCode(base.toLowerCase().charCodeAt(0) & 0x1f) : CTRL_SPECIAL.get(base);
    return control === undefined ? undefined : prefix + control;
  }
  const plain = PLAIN_KEYS.get(base) ?? (isSingleCharacter(base) ? base : undefined);
  return plain === undefined ? undefined : prefix + plain;
}

function encodeSequenceKey(key: SequenceKey, modifiers: Modifiers, mode: KeyEncodingMode): string {
  // xterm's modifier parameter: 1 + shift(1) + alt(2) + ctrl(4).
  const parameter = 1 + (modifiers.shift ? 1 : 0) + (modifiers.alt ? 2 : 0) + (modifiers.ctrl ? 4 : 0);
  switch (key.kind) {
    case "tilde":
      return parameter === 1 ? `${ESC}[${key.number}~` : `${ESC}[${key.number};${parameter}~`;
    case "ss3":
      return parameter === 1 ? `${ESC}O${key.final}` : `${ESC}[1;${parameter}${key.final}`;
    case "cursor":
      if (parameter !== 1) return `${ESC}[1;${parameter}${key.final}`;
      return mode.applicationCursor ? `${ESC}O${key.final}` : `${ESC}[${key.final}`;
  }
}

function isSingleCharacter(text: string): boolean {
  if (text.length === 1) return true;
  if (text.length !== 2) return false;
  const code = text.codePointAt(0) ?? 0;
  return code > 0xffff;
}

function unknownKey(name: string): AgentTtyError {
  return invalidArgument(
    `Unknown key name ${describeValue(name)}; expected one of: ${KEY_NAMES.join(", ")}; ` +
      "ctrl+<letter> or ctrl+[ ctrl+\\ ctrl+] ctrl+^ ctrl+_ ctrl+@; " +
      "alt+<key>; shift+<letter>, shift+ or ctrl+ before an arrow, home, end, " +
      "insert, delete, pageup, pagedown or f-key; or a single character",
  );
}
