/** What `expect()` found. */
export interface ExpectMatch {
  /** The text that matched. */
  readonly match: string;
  /** The capture groups (empty for a string pattern). */
  readonly groups: string[];
  /** Clean text that arrived after the call and before the match. */
  readonly before: string;
}

/** Clean text kept for matching; older text is let go. */
const MAX_SEEN_CHARS = 1 << 20;

/**
 * Matches a pattern against the clean text that arrives after it was made:
 * complete lines, plus the unfinished last line (a prompt such as
 * `Password: ` has no newline). The part of the unfinished line already on
 * screen when it was made does not count.
 */
export class Expectation {
  readonly #pattern: string | RegExp;
  #skip: number;
  #seen = "";

  constructor(pattern: string | RegExp, partialLineNow: string) {
    this.#pattern = typeof pattern === "string" ? pattern : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
    this.#skip = partialLineNow.length;
  }

  /** Takes a completed line (or `undefined`) and the unfinished line; returns the match, if any. */
  feed(line: string | undefined, partial: string): ExpectMatch | undefined {
    if (line !== undefined) {
      this.#seen += `${line.slice(this.#skip)}\n`;
      this.#skip = 0;
      if (this.#seen.length > MAX_SEEN_CHARS) this.#seen = this.#seen.slice(this.#seen.length - MAX_SEEN_CHARS / 2);
    }
    const text = this.#seen + partial.slice(this.#skip);
    if (typeof this.#pattern === "string") {
      const index = text.indexOf(this.#pattern);
      return index === -1 ? undefined : { match: this.#pattern, groups: [], before: text.slice(0, index) };
    }
    const match = this.#pattern.exec(text);
    if (match === null) return undefined;
    return { match: match[0], groups: match.slice(1).map((group) => group ?? ""), before: text.slice(0, match.index) };
  }

  /** The last `maxChars` characters seen, for an error message. */
  recent(partial: string, maxChars = 2000): string {
    return (this.#seen + partial.slice(this.#skip)).slice(-maxChars);
  }
}
