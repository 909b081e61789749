/**
 * The line-delimited JSON protocol the `k` client and the session daemon
 * speak over the daemon's Unix socket (where that socket lives: paths.ts).
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
 */

/** Bumped when a request or reply changes incompatibly. */
export const PROTOCOL_VERSION = 1;

/** Session names: one rule for the library and `k` (see `names.ts`). */
export { isValidSessionName } from "../../names.js";

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
