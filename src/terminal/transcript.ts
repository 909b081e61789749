/** Characters of clean transcript a session keeps for `history()`. */
const MAX_CHARS = 2 << 20;

/**
 * The clean transcript of a session, bounded: cells' input lines and output
 * as a person would have read them.
 */
export class Transcript {
  #chunks: string[] = [];
  #chars = 0;

  append(text: string): void {
    if (text === "") return;
    this.#chunks.push(text);
    this.#chars += text.length;
    while (this.#chars > MAX_CHARS && this.#chunks.length > 1) {
      this.#chars -= (this.#chunks.shift() as string).length;
    }
    if (this.#chunks.length > 4096) this.#chunks = [this.#chunks.join("")];
  }

  /** The last `count` lines, `\n`-joined. */
  lastLines(count: number): string {
    const text = this.#chunks.join("");
    const body = text.endsWith("\n") ? text.slice(0, -1) : text;
    if (body === "") return "";
    let start = body.length;
    for (let found = 0; found < count; found++) {
      const newline = body.lastIndexOf("\n", start - 1);
      if (newline === -1) return body;
      start = newline;
    }
    return body.slice(start + 1);
  }
}
