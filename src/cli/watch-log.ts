/**
 * The filtered view of a session that `k watch` streams and `k history`
 * tails: the clean transcript's lines, cell markers (`── <id> ──` when a cell
 * starts, `── ✓ ──` / `── ⏱ ──` / `── ✗ ──` when it ends), notifications,
 * without blank lines, Python continuation prompts and frame noise (the
 * repeats in runs of five or more identical lines: the first one shows).
 */

/** One item of the view. */
export type WatchEntry =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "fired"; readonly cellId: string }
  | { readonly kind: "end"; readonly status: "done" | "timeout" | "interrupted" | "error" }
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
      if (entry.status === "done") return paint("2;32", "── ✓ ──");
      if (entry.status === "timeout") return paint("2;33", "── ⏱ ──");
      return paint("2;31", "── ✗ ──");
    case "notify":
      return color ? `\x1b[33m📢 ${entry.message}${RESET} ${DIM}(${entry.from})${RESET}` : `📢 ${entry.message} (${entry.from})`;
  }
}

/** Keeps the last `capacity` entries and tells listeners about new ones. */
export class WatchLog {
  readonly #capacity: number;
  readonly #entries: WatchEntry[] = [];
  readonly #listeners = new Set<(entry: WatchEntry) => void>();
  #partial = "";
  #run: string[] = [];

  constructor(capacity = 5000) {
    this.#capacity = capacity;
  }

  /** Feeds clean terminal text (any chunking). */
  pushText(chunk: string): void {
    const lines = (this.#partial + chunk).split("\n");
    this.#partial = lines.pop() ?? "";
    for (const raw of lines) this.#line(raw);
  }

  /** Adds a marker; it also ends any pending run of identical lines. */
  mark(entry: Exclude<WatchEntry, { kind: "text" }>): void {
    this.#flushRun();
    this.#add(entry);
  }

  /** The last `n` entries. */
  tail(n: number): WatchEntry[] {
    return this.#entries.slice(-n);
  }

  /** Calls `listener` for every entry from now on; returns the unsubscribe function. */
  subscribe(listener: (entry: WatchEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Flushes what is pending (at the end of the session). */
  flush(): void {
    if (this.#partial) this.#line(this.#partial);
    this.#partial = "";
    this.#flushRun();
  }

  #line(raw: string): void {
    const text = raw.replace(/\r/g, "").trimEnd();
    const trimmed = text.trim();
    if (!trimmed || trimmed === "..." || trimmed.startsWith("... ")) return;
    if (this.#run.length > 0 && this.#run[0]?.trim() === trimmed) {
      this.#run.push(text);
      return;
    }
    this.#flushRun();
    // The first line of a run shows at once; its repeats wait to see whether they are noise.
    this.#run = [text];
    this.#add({ kind: "text", text });
  }

  #flushRun(): void {
    const run = this.#run;
    this.#run = [];
    if (run.length >= NOISE_RUN) return;
    for (const text of run.slice(1)) this.#add({ kind: "text", text });
  }

  #add(entry: WatchEntry): void {
    this.#entries.push(entry);
    if (this.#entries.length > this.#capacity) this.#entries.splice(0, this.#entries.length - this.#capacity);
    for (const listener of this.#listeners) listener(entry);
  }
}
