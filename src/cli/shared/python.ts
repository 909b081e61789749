/**
 * The text formats of the original Python agent-tty (its `json.dumps`,
 * `repr` and timestamps), reproduced exactly because agents and scripts grep
 * them. Pure; no imports (the `k` client uses them).
 */

/** A JSON value as `pyJson` prints it. */
export type PyValue = string | number | boolean | null | readonly PyValue[] | { readonly [key: string]: PyValue | undefined };

/**
 * `json.dumps(value, ensure_ascii=False)` of Python: one line, `", "` and
 * `": "` separators, non-ASCII characters unescaped, control characters as
 * `\u00XX`. For strings `JSON.stringify` already escapes exactly like Python
 * does (both leave U+2028, U+2029 and DEL as they are). Keys whose value is
 * `undefined` are left out; numbers must be integers (Python prints floats
 * differently).
 */
export function pyJson(value: PyValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (Number.isInteger(value)) return String(value);
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : value < 0 ? "-Infinity" : "NaN";
    return pyFloat(value);
  }
  if (Array.isArray(value)) return `[${value.map((item: PyValue) => pyJson(item)).join(", ")}]`;
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value as Record<string, PyValue | undefined>)) {
    if (item === undefined) continue;
    parts.push(`${JSON.stringify(key)}: ${pyJson(item)}`);
  }
  return `{${parts.join(", ")}}`;
}

/** Python's `repr(float)`: shortest round-trip digits, always with a `.` or an exponent. */
function pyFloat(value: number): string {
  const text = String(value);
  if (/e/.test(text)) {
    // JS: 1e+21, 1.5e-7 ; Python: 1e+21, 1.5e-07
    return text.replace(/e([+-])(\d)$/, "e$10$2");
  }
  return text.includes(".") ? text : `${text}.0`;
}

/**
 * Python's `repr(str)`: single quotes unless the text holds a `'` and no
 * `"`; backslash escapes for `\\`, `\n`, `\r`, `\t` and non-printable
 * characters.
 */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + quote;
}

/**
 * `datetime.now(timezone.utc).isoformat()` of Python:
 * `2025-01-02T03:04:05.678000+00:00` (microseconds, `+00:00`).
 */
export function pyTimestamp(date = new Date()): string {
  const iso = date.toISOString(); // 2025-01-02T03:04:05.678Z
  return `${iso.slice(0, 23)}000+00:00`;
}
