/** The result of {@link CappedText.finish}. */
export interface CappedTextResult {
  readonly text: string;
  readonly truncated: boolean;
  readonly omittedBytes: number;
}

/**
 * Accumulates text up to a byte budget, keeping the head and the tail (half
 * the budget each) and counting what fell out of the middle. Memory stays
 * bounded whatever is appended.
 */
export class CappedText {
  readonly #maxBytes: number;
  readonly #half: number;
  #head: string[] = [];
  #headBytes = 0;
  #tail: string[] = [];
  #tailBytes = 0;
  #totalBytes = 0;
  #overflowed = false;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
    this.#half = Math.floor(maxBytes / 2);
  }

  /** Bytes appended so far, kept or not. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  append(text: string): void {
    if (text === "") return;
    const bytes = Buffer.byteLength(text);
    this.#totalBytes += bytes;
    if (!this.#overflowed) {
      if (this.#headBytes + bytes <= this.#maxBytes) {
        this.#head.push(text);
        this.#headBytes += bytes;
        return;
      }
      this.#overflow(text);
      return;
    }
    this.#tail.push(text);
    this.#tailBytes += bytes;
    while (this.#tail.length > 1) {
      const first = this.#tail[0] as string;
      const firstBytes = Buffer.byteLength(first);
      if (this.#tailBytes - firstBytes < this.#half) break;
      this.#tail.shift();
      this.#tailBytes -= firstBytes;
    }
  }

  // The head would go over budget: keep the first half of everything so far (this text included),
  // and start the tail with the rest (at most half a budget of it).
  #overflow(text: string): void {
    this.#overflowed = true;
    const whole = this.#head.join("") + text;
    const head = sliceBytes(whole, this.#half);
    this.#head = [head];
    this.#headBytes = Buffer.byteLength(head);
    let rest = whole.slice(head.length);
    if (rest.length > this.#maxBytes) rest = sliceBytesFromEnd(rest, this.#half);
    this.#tail = rest === "" ? [] : [rest];
    this.#tailBytes = Buffer.byteLength(rest);
  }

  /** Everything kept so far, without cutting or marking. */
  peek(): string {
    return this.#head.join("") + this.#tail.join("");
  }

  /** The last `maxChars` characters appended (within what is kept). */
  tail(maxChars: number): string {
    const kept = this.#overflowed ? this.#tail.join("") : this.#head.join("");
    return kept.length > maxChars ? kept.slice(kept.length - maxChars) : kept;
  }

  /**
   * The kept text; when something was cut, head and tail are trimmed to
   * whole lines and joined by `marker(omittedBytes)`.
   */
  finish(marker: (omittedBytes: number) => string): CappedTextResult {
    const head = this.#head.join("");
    if (!this.#overflowed) return { text: head, truncated: false, omittedBytes: 0 };
    let tail = this.#tail.join("");
    const tailLimit = sliceBytesFromEnd(tail, this.#half);
    tail = tail.slice(tail.length - tailLimit.length);
    let keptHead = head;
    const headCut = keptHead.lastIndexOf("\n");
    if (headCut !== -1) keptHead = keptHead.slice(0, headCut + 1);
    const tailCut = tail.indexOf("\n");
    if (tailCut !== -1 && tailCut < tail.length - 1) tail = tail.slice(tailCut + 1);
    const omittedBytes = this.#totalBytes - Buffer.byteLength(keptHead) - Buffer.byteLength(tail);
    const separator = keptHead === "" || keptHead.endsWith("\n") ? "" : "\n";
    return {
      text: `${keptHead}${separator}${marker(omittedBytes)}\n${tail}`,
      truncated: true,
      omittedBytes,
    };
  }
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8. */
function sliceBytes(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3) return text;
  const buffer = Buffer.from(text);
  if (buffer.length <= maxBytes) return text;
  return buffer.subarray(0, maxBytes).toString().replace(/\uFFFD$/, "");
}

/** The longest suffix of `text` that fits in `maxBytes` of UTF-8. */
function sliceBytesFromEnd(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text);
  if (buffer.length <= maxBytes) return text;
  return buffer.subarray(buffer.length - maxBytes).toString().replace(/^\uFFFD/, "");
}
