/**
 * What the `k` client and the session daemon share: where the daemon lives,
 * and the line-delimited JSON protocol they speak over its Unix socket.
 *
 * This module is imported by the client, which must start fast: it uses
 * node built-ins only and never the library.
 *
 * Protocol (version {@link PROTOCOL_VERSION}), one JSON object per line:
 *
 * - The client sends a request `{"v": 1, "op": "<op>", ...fields}`.
 * - For one-shot ops the daemon answers one line, a {@link Reply}:
 *   `{"ok": true, "exit": 0, "stdout": "OK work\n", "result": {...}}`;
 *   `stdout` is what `k` prints, `exit` its exit status, `result` the same
 *   answer as data (for other clients).
 * - For streaming ops (`watch`, `monitor`, `attach`) the first reply line is
 *   followed by {@link StreamLine}s until `{"end": true, "exit": N}`; during
 *   `attach` the client sends {@link AttachInput} lines.
 * - `{"ok": false, "exit": 1, "stdout": "ERR ...\n", "error": "..."}` is a
 *   failed request.
 *
 * It also holds the text formats of the original Python agent-tty (its
 * `json.dumps`, `repr` and timestamps), reproduced exactly because agents
 * and scripts grep them.
 */
import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Bumped when a request or reply changes incompatibly. */
export const PROTOCOL_VERSION = 1;

/** Session names: one rule for the library and `k` (see `names.ts`). */
export { isValidSessionName } from "../names.js";

/** A well-formed cell id: hex digits, as the original's and ours are (`a1b2c3`, `4f5a77b6415f`). */
export const CELL_ID = /^[0-9a-f]{4,32}$/i;


/** Default `k run` timeout (seconds). */
export const RUN_TIMEOUT_S = 30;
/** Default `k fire` timeout (seconds). */
export const FIRE_TIMEOUT_S = 300;
/** The byte that detaches `k attach`: Ctrl-]. */
export const DETACH_BYTE = 0x1d;

/** Requests, by op. `session: null` means "resolve it" (K_SESSION was already applied by the client). */
export type Request =
  | { op: "ping" }
  | { op: "shutdown" }
  | {
      op: "new";
      session: string;
      /** The command words joined by spaces (a shell-style command line), or null for bash. */
      command: string | null;
      /** `--prompt=` text (exact prompt mode), if given and not a path. */
      prompt: string | null;
      /** `--prompt=./hook` resolved to an absolute path. */
      hook: string | null;
      label: string | null;
      description: string | null;
      cwd: string;
      env: Record<string, string>;
      /** The client's package version: a daemon of another version with no session steps down. */
      version?: string;
    }
  | { op: "run"; session: string | null; code: string; timeoutMs: number; json: boolean }
  | { op: "fire"; session: string | null; code: string; timeoutMs: number }
  | { op: "poll"; session: string | null; cellId: string | null }
  | { op: "int"; session: string | null }
  | { op: "kill"; session: string }
  | { op: "ls" }
  | { op: "status"; session: string | null }
  | { op: "history"; session: string | null; n: number; color: boolean }
  | { op: "notify"; session: string | null; words: string[]; from: string }
  | { op: "screen"; session: string | null }
  | { op: "keys"; session: string | null; words: string[] }
  | { op: "type"; session: string | null; text: string }
  | { op: "expect"; session: string | null; words: string[]; timeoutMs: number; json: boolean }
  | { op: "watch"; session: string | null; color: boolean }
  | { op: "monitor"; session: string; cellId: string | null; once: boolean }
  | { op: "attach"; session: string | null; cols: number; rows: number };

/** The op names. */
export type Op = Request["op"];

/** A one-shot answer, or the first line of a stream. */
export interface Reply {
  ok: boolean;
  exit: number;
  /** The daemon is stepping down for a newer one: connect again (it starts anew). */
  restart?: boolean;
  stdout?: string;
  error?: string;
  result?: unknown;
}

/** A line of a stream after its first reply. */
export type StreamLine =
  | { line: string } // a line to print (watch, monitor)
  | { data: string } // terminal output (attach)
  | { end: true; exit: number; stdout?: string };

/** What an attached client sends. */
export type AttachInput = { input: string } | { resize: [number, number] } | { detach: true };

/** Where the daemon keeps its socket, lock and log. */
export interface DaemonPaths {
  home: string;
  socket: string;
  lock: string;
  log: string;
}

/**
 * The daemon's directory: `$AGENT_TTY_HOME`, else
 * `${XDG_RUNTIME_DIR or the temp dir}/agent-tty-<uid>`.
 */
export function daemonPaths(env: NodeJS.ProcessEnv = process.env): DaemonPaths {
  let home: string;
  if (env["AGENT_TTY_HOME"]) home = resolve(env["AGENT_TTY_HOME"]);
  else {
    const base = env["XDG_RUNTIME_DIR"] || tmpdir();
    const uid = typeof process.getuid === "function" ? process.getuid() : "user";
    home = join(base, `agent-tty-${uid}`);
  }
  return {
    home,
    socket: join(home, "daemon.sock"),
    lock: join(home, "daemon.lock"),
    log: join(home, "daemon.log"),
  };
}

/** Unix socket paths longer than this do not fit `sockaddr_un` on Linux/macOS. */
const MAX_SOCKET_PATH = 103;

/**
 * Checks that the daemon's directory belongs to this user and nobody else
 * can enter it, that no other user could ever have written to it (one that
 * others can write is refused, not repaired), and that nothing in it is a
 * symbolic link or another user's; with `create`, makes it (0700) first.
 * Throws an `Error` whose message is a complete sentence for the user.
 */
export function checkHome(paths: DaemonPaths, create: boolean): void {
  if (Buffer.byteLength(paths.socket) > MAX_SOCKET_PATH) {
    throw new Error(
      `socket path ${paths.socket} is too long for a Unix socket; set AGENT_TTY_HOME to a shorter directory`,
    );
  }
  if (create) mkdirSync(paths.home, { recursive: true, mode: 0o700 });
  const st = lstatSync(paths.home);
  if (!st.isDirectory()) throw new Error(`${paths.home} is not a directory; remove it or set AGENT_TTY_HOME`);
  const uid = typeof process.getuid === "function" ? process.getuid() : st.uid;
  if (st.uid !== uid) {
    throw new Error(`${paths.home} belongs to uid ${st.uid}, not to you (uid ${uid}); set AGENT_TTY_HOME`);
  }
  if ((st.mode & 0o022) !== 0) {
    // Another user could have planted a socket (our env would go to their "daemon") or a log link.
    throw new Error(
      `${paths.home} is writable by other users, so nothing in it can be trusted; remove it (rm -rf ${paths.home}) or set AGENT_TTY_HOME to a private directory`,
    );
  }
  if ((st.mode & 0o077) !== 0) {
    if (!create) throw new Error(`${paths.home} can be entered by other users; run any k command to repair it`);
    chmodSync(paths.home, 0o700);
  }
  for (const name of readdirSync(paths.home)) {
    const path = join(paths.home, name);
    let entry: Stats;
    try {
      entry = lstatSync(path);
    } catch {
      continue; // gone
    }
    if (entry.isSymbolicLink()) {
      throw new Error(`${path} is a symbolic link; agent-tty follows no links in its directory: remove it (or the whole directory)`);
    }
    if (entry.uid !== uid) throw new Error(`${path} belongs to uid ${entry.uid}, not to you (uid ${uid}): remove it (or the whole directory)`);
  }
}

/** Reads the pid written in the daemon's lock file, or null. */
export function readLockPid(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** True when a process with this pid exists (it may belong to another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** True when `pid` is alive and looks like an agent-tty daemon (where /proc can tell): a reused pid is not. */
export function daemonAlive(pid: number): boolean {
  if (!pidAlive(pid)) return false;
  try {
    // Our daemon runs as `node …/cli/daemon.js`; a mere "daemon" in the command line (dbus-daemon) is another program.
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .some((arg) => /(^|\/)daemon\.[cm]?[jt]s$/.test(arg));
  } catch {
    return true;
  }
}

/** Opens (creating, 0600) the daemon's log for appending; returns the fd. */
export function openLog(paths: DaemonPaths): number {
  return openSync(paths.log, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
}

/** Closes an fd, ignoring errors. */
export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
}

/**
 * Splits a stream into newline-ended lines (empty lines dropped). A line
 * longer than `maxLineChars` is not assembled: `push` throws
 * {@link LineTooLongError} once the pending part passes it.
 */
export class LineSplitter {
  readonly #maxLineChars: number;
  /** The unfinished line, in pieces: joined only when its newline comes (no copy per chunk). */
  #pending: string[] = [];
  #pendingChars = 0;

  constructor(maxLineChars = Infinity) {
    this.#maxLineChars = maxLineChars;
  }

  push(chunk: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf("\n"); end >= 0; end = chunk.indexOf("\n", start)) {
      this.#add(chunk, start, end);
      const line = this.#pending.length === 1 ? (this.#pending[0] as string) : this.#pending.join("");
      this.#pending = [];
      this.#pendingChars = 0;
      if (line.length > 0) lines.push(line);
      start = end + 1;
    }
    this.#add(chunk, start, chunk.length);
    return lines;
  }

  #add(chunk: string, start: number, end: number): void {
    if (end <= start) return;
    this.#pendingChars += end - start;
    if (this.#pendingChars > this.#maxLineChars) throw new LineTooLongError(this.#maxLineChars);
    this.#pending.push(start === 0 && end === chunk.length ? chunk : chunk.slice(start, end));
  }
}

/** A protocol line longer than its reader accepts. */
export class LineTooLongError extends Error {
  constructor(readonly maxLineChars: number) {
    super(`request line longer than ${maxLineChars} characters`);
    this.name = "LineTooLongError";
  }
}

/** `agent-tty <version>`, the version read from the package.json next to dist/. */
export function versionLine(): string {
  return `agent-tty ${packageVersion()}`;
}

/** This package's version, or "unknown". */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string };
    return pkg.version ?? "unknown";
  } catch {
    return "unknown";
  }
}

// ── Python's text formats ───────────────────────────────────────────────

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
