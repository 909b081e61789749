/** The result of {@link CappedText.finish}. */
export interface CappedTextResult {
  readonly text: string;
  readonly truncated: boolean;
  readonly omittedBytes: number;
}

/** Up to this many bytes the head is kept as strings; past it, as UTF-8 bytes outside the JS heap. */
const HEAD_PIECES_BYTES = 64 * 1024;
/** How much the head's buffer grows when full. */
const GROWTH = 4;

/**
 * Accumulates text up to a byte budget, keeping the head and the tail (half
 * the budget each) and counting what fell out of the middle. Memory stays
 * bounded whatever is appended.
 *
 * A long head is kept as UTF-8 bytes in a buffer outside the JS heap: a
 * 15 MB output kept whole is held once, as bytes, instead of as thousands of
 * strings the garbage collector copies from generation to generation (and
 * grows its young generation for: tens of MB of resident memory).
 */
export class CappedText {
  readonly #maxBytes: number;
  readonly #half: number;
  /** The head while short (strings), or once cut (one string). */
  #head: string[] = [];
  /** The head once long, as bytes: `#headBytes` of them are used. */
  #headBuffer: Buffer | undefined;
  #headAscii = true;
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
        this.#appendHead(text, bytes);
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

  #appendHead(text: string, bytes: number): void {
    const used = this.#headBytes + bytes;
    if (this.#headBuffer === undefined && used <= HEAD_PIECES_BYTES) {
      this.#head.push(text);
      this.#headBytes = used;
      return;
    }
    let buffer = this.#headBuffer;
    if (buffer === undefined || buffer.length < used) {
      // Grows fourfold: few copies, and few outgrown buffers left for the GC (they were written, so
      // they are resident until it frees them). Memory never written is not resident.
      const size = Math.min(this.#maxBytes, Math.max(used, (buffer?.length ?? HEAD_PIECES_BYTES) * GROWTH));
      const grown = Buffer.allocUnsafeSlow(size);
      if (buffer !== undefined) buffer.copy(grown, 0, 0, this.#headBytes);
      else this.#writeHead(grown, this.#head.join(""), 0);
      this.#head = [];
      this.#headBuffer = buffer = grown;
    }
    this.#writeHead(buffer, text, this.#headBytes);
    this.#headBytes = used;
  }

  #writeHead(buffer: Buffer, text: string, offset: number): void {
    const bytes = Buffer.byteLength(text);
    // ASCII (as many bytes as characters) is copied as is; the rest is encoded.
    if (bytes === text.length) buffer.write(text, offset, bytes, "latin1");
    else {
      buffer.write(text, offset, bytes, "utf8");
      this.#headAscii = false;
    }
  }

  /** The head as one string (the pieces are joined once, not held beside their joined text). */
  #headText(): string {
    const buffer = this.#headBuffer;
    if (buffer !== undefined) return buffer.toString(this.#headAscii ? "latin1" : "utf8", 0, this.#headBytes);
    if (this.#head.length > 1) this.#head = [this.#head.join("")];
    return this.#head[0] ?? "";
  }

  // The head would go over budget: keep the first half of everything so far (this text included),
  // and start the tail with the rest (at most half a budget of it).
  #overflow(text: string): void {
    this.#overflowed = true;
    const whole = this.#headText() + text;
    this.#headBuffer = undefined;
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
    return this.#headText() + this.#tail.join("");
  }

  /** The last `maxChars` characters appended (within what is kept). */
  tail(maxChars: number): string {
    const buffer = this.#headBuffer;
    if (!this.#overflowed && buffer !== undefined) {
      // The last characters only: at most 4 bytes each, and a character cut at the start is dropped.
      let from = Math.max(0, this.#headBytes - maxChars * 4);
      while (from > 0 && ((buffer[from] as number) & 0xc0) === 0x80) from++;
      const kept = buffer.toString("utf8", from, this.#headBytes);
      return kept.length > maxChars ? kept.slice(kept.length - maxChars) : kept;
    }
    const kept = this.#overflowed ? this.#tail.join("") : this.#headText();
    return kept.length > maxChars ? kept.slice(kept.length - maxChars) : kept;
  }

  /**
   * The kept text; when something was cut, head and tail are trimmed to
   * whole lines and joined by `marker(omittedBytes)`.
   */
  finish(marker: (omittedBytes: number) => string): CappedTextResult {
    const head = this.#headText();
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
  return buffer
    .subarray(0, maxBytes)
    .toString()
    .replace(/\uFFFD$/, "");
}

/** The longest suffix of `text` that fits in `maxBytes` of UTF-8. */
function sliceBytesFromEnd(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text);
  if (buffer.length <= maxBytes) return text;
  return buffer
    .subarray(buffer.length - maxBytes)
    .toString()
    .replace(/^\uFFFD/, "");
}
