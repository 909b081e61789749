/**
 * The filtered view of a session that `k watch` streams and `k history`
 * tails: the clean transcript's lines, cell markers (`── <id> ──` when a cell
 * starts, `── ✓ ──` / `── ✗ 2 ──` (a non-zero exit status) / `── ⏱ ──` /
 * `── ✗ ──` when it ends), notifications,
 * without blank lines, Python continuation prompts and frame noise (the
 * repeats in runs of five or more identical lines: the first one shows).
 */

/** One item of the view. */
export type WatchEntry =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "fired"; readonly cellId: string }
  | { readonly kind: "end"; readonly status: "done" | "timeout" | "interrupted" | "error"; readonly exitCode?: number | null }
  | { readonly kind: "notify"; readonly from: string; readonly message: string };

/** A run this long of identical lines is frame noise (empty Enters echoing the prompt). */
export const NOISE_RUN = 5;

const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

/** The line `k watch` prints for an entry; ANSI colors when `color`. */
export function formatEntry(entry: WatchEntry, color: boolean): string {
  const paint = (codes: string, text: string): string => (color ? `\x1b[${codes}m${text}${RESET}` : text);
  switch (entry.kind) {
    case "text":
      return entry.text;
    case "fired":
      return paint("2;36", `── ${entry.cellId.slice(0, 8)} ──`);
    case "end":
      if (entry.status === "done" && typeof entry.exitCode === "number" && entry.exitCode !== 0)
        return paint("2;31", `── ✗ ${entry.exitCode} ──`);
      if (entry.status === "done") return paint("2;32", "── ✓ ──");
      if (entry.status === "timeout") return paint("2;33", "── ⏱ ──");
      return paint("2;31", "── ✗ ──");
    case "notify":
      return color ? `\x1b[33m📢 ${entry.message}${RESET} ${DIM}(${entry.from})${RESET}` : `📢 ${entry.message} (${entry.from})`;
  }
}

/** Longest line the view keeps; the rest of a longer line is counted, not kept. */
export const MAX_LINE_CHARS = 4096;

/**
 * Keeps the last `capacity` entries and tells listeners about new ones.
 * Memory stays bounded whatever a program prints: a line is kept up to
 * {@link MAX_LINE_CHARS} (an unfinished one too), and a run of identical
 * lines holds at most the repeats that could still turn out not to be noise.
 */
export class WatchLog {
  readonly #capacity: number;
  #entries: WatchEntry[] = [];
  readonly #listeners = new Set<(entry: WatchEntry) => void>();
  #partial = "";
  /** Characters of the unfinished line past MAX_LINE_CHARS, left out. */
  #partialOmitted = 0;
  /** The first line of the current run of identical lines (trimmed), and its repeats while they may still show. */
  #runKey: string | undefined;
  #repeats: string[] = [];
  #runLength = 0;

  constructor(capacity = 5000) {
    this.#capacity = capacity;
  }

  /** Feeds clean terminal text (any chunking). */
  pushText(chunk: string): void {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end >= 0; end = chunk.indexOf("\n", start)) {
      this.#appendPartial(chunk, start, end);
      this.#line(this.#takePartial());
      start = end + 1;
    }
    this.#appendPartial(chunk, start, chunk.length);
  }

  /** Adds a marker; it also ends any pending run of identical lines. */
  mark(entry: Exclude<WatchEntry, { kind: "text" }>): void {
    this.#flushRun();
    this.#add(entry);
  }

  /** The last `n` entries. */
  tail(n: number): WatchEntry[] {
    return this.#entries.slice(-Math.min(n, this.#capacity));
  }

  /** Calls `listener` for every entry from now on; returns the unsubscribe function. */
  subscribe(listener: (entry: WatchEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Flushes what is pending (at the end of the session). */
  flush(): void {
    if (this.#partial !== "" || this.#partialOmitted > 0) this.#line(this.#takePartial());
    this.#flushRun();
  }

  #appendPartial(chunk: string, start: number, end: number): void {
    const room = MAX_LINE_CHARS - this.#partial.length;
    const length = end - start;
    if (length <= room) {
      if (length > 0) this.#partial += chunk.slice(start, end);
      return;
    }
    if (room > 0) this.#partial += chunk.slice(start, start + room);
    this.#partialOmitted += length - Math.max(room, 0);
  }

  #takePartial(): string {
    const line = this.#partialOmitted > 0 ? `${this.#partial} [… ${this.#partialOmitted} characters omitted …]` : this.#partial;
    this.#partial = "";
    this.#partialOmitted = 0;
    return line;
  }

  #line(raw: string): void {
    const text = raw.replace(/\r/g, "").trimEnd();
    const trimmed = text.trim();
    if (!trimmed || trimmed === "..." || trimmed.startsWith("... ")) return;
    if (this.#runKey === trimmed) {
      this.#runLength++;
      // From NOISE_RUN on the run is noise and its repeats never show: stop holding them.
      if (this.#runLength < NOISE_RUN) this.#repeats.push(text);
      else this.#repeats = [];
      return;
    }
    this.#flushRun();
    // The first line of a run shows at once; its repeats wait to see whether they are noise.
    this.#runKey = trimmed;
    this.#runLength = 1;
    this.#add({ kind: "text", text });
  }

  #flushRun(): void {
    const repeats = this.#repeats;
    const noise = this.#runLength >= NOISE_RUN;
    this.#runKey = undefined;
    this.#repeats = [];
    this.#runLength = 0;
    if (noise) return;
    for (const text of repeats) this.#add({ kind: "text", text });
  }

  #add(entry: WatchEntry): void {
    this.#entries.push(entry);
    // Trimmed in batches: dropping the oldest entry one at a time costs a copy of the whole log per line.
    if (this.#entries.length >= this.#capacity * 2) this.#entries = this.#entries.slice(-this.#capacity);
    for (const listener of this.#listeners) listener(entry);
  }
}
