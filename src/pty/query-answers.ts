/** A terminal query in program output: device attributes, status, cursor position, an OSC colour query. */
export const TERMINAL_QUERY = /\x1b\[[>=?]?[\d;]*[cn]|\x1b\][\d;]*\?/;
const TERMINAL_QUERIES = new RegExp(TERMINAL_QUERY.source, "g");

/** What {@link QueryAnswers} needs from its session. */
export interface QueryAnswersOptions {
  /** Whether the program reads the terminal raw now (see `terminalIsRaw`). */
  readonly isRaw: () => Promise<boolean>;
  /** Writes an answer to the program. */
  readonly write: (answer: string) => void;
  /** Most answer text held while a check runs; answers past it are dropped (a program flooding queries). Default 64 KiB. */
  readonly maxPendingChars?: number;
}

/**
 * Answers a program's terminal queries (cursor position, device attributes)
 * the way a terminal would, but only to a program that waits for them: one
 * that reads the terminal raw and printed nothing after asking. A program
 * that went on printing (a REPL back at `>>> `, a shell at its prompt) did
 * not wait, and the answer would be typed into its next command line.
 *
 * Answers are batched: one mode check runs at a time, in a child process,
 * for every answer that arrived before it started, so a flood of queries
 * costs a handful of checks and never holds the event loop.
 */
export class QueryAnswers {
  readonly #options: QueryAnswersOptions;
  readonly #maxPendingChars: number;
  #pending: string[] = [];
  #pendingChars = 0;
  /** The program printed something after the pending answers' queries. */
  #pendingOutdated = false;
  /** The program printed something after the queries of the batch being checked. */
  #checkedOutdated = false;
  #checking = false;
  #closed = false;
  /** Answers not sent: the program was not reading raw, went on printing, or flooded. */
  dropped = 0;

  constructor(options: QueryAnswersOptions) {
    this.#options = options;
    this.#maxPendingChars = options.maxPendingChars ?? 64 * 1024;
  }

  /** An answer the emulator produced for a query in the program's output. */
  push(answer: string): void {
    if (this.#closed) return;
    if (this.#pendingChars + answer.length > this.#maxPendingChars) {
      this.dropped++;
      return;
    }
    this.#pending.push(answer);
    this.#pendingChars += answer.length;
    if (!this.#checking) void this.#check();
  }

  /**
   * Program output that came after the answers pushed so far (a later chunk, or the rest of the
   * chunk after its last query). Anything but more queries means the program did not wait.
   */
  noteOutput(text: string): void {
    if (text === "" || (this.#pending.length === 0 && !this.#checking)) return;
    if (text.includes("\x1b") && text.replace(TERMINAL_QUERIES, "") === "") return;
    if (this.#pending.length > 0) this.#pendingOutdated = true;
    if (this.#checking) this.#checkedOutdated = true;
  }

  /** Drops what is pending; later answers are ignored. */
  close(): void {
    this.#closed = true;
    this.#pending = [];
    this.#pendingChars = 0;
  }

  async #check(): Promise<void> {
    this.#checking = true;
    try {
      while (this.#pending.length > 0 && !this.#closed) {
        const batch = this.#pending;
        this.#checkedOutdated = this.#pendingOutdated;
        this.#pending = [];
        this.#pendingChars = 0;
        this.#pendingOutdated = false;
        const raw = await this.#options.isRaw();
        if (this.#closed) return;
        if (raw && !this.#checkedOutdated) this.#options.write(batch.join(""));
        else this.dropped += batch.length;
      }
    } finally {
      this.#checking = false;
    }
  }
}

/** The part of `text` after its last terminal query (all of it when it has none). */
export function afterLastQuery(text: string): string {
  let end = 0;
  for (const match of text.matchAll(TERMINAL_QUERIES)) end = match.index + match[0].length;
  return text.slice(end);
}
