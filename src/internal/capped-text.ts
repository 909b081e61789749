/** The result of {@link CappedText.finish}. */
export interface CappedTextResult {
  readonly text: string;
  readonly truncated: boolean;
  readonly omittedBytes: number;
}

/** Told when the staging buffer's bytes are reused or let go (see {@link CappedText}). */
export interface SealListener {
  /**
   * The bytes `stage` holds from its start are about to be overwritten or let go: `piece` is the
   * string they became, when they did and it is ASCII (a byte a character), otherwise undefined.
   */
  onSealed: ((stage: Buffer, piece: string | undefined) => void) | undefined;
}

/** Up to this many bytes the head is kept as the strings appended; past it, through a staging buffer. */
const HEAD_PIECES_BYTES = 64 * 1024;
/**
 * The staging buffer's size. Full, it becomes one string; Node keeps a
 * Latin-1 (ASCII) string this long outside the JS heap (over ~1,008 kB).
 */
const STAGE_BYTES = 1 << 20;

/**
 * Accumulates text up to a byte budget, keeping the head and the tail (half
 * the budget each) and counting what fell out of the middle. Memory stays
 * bounded whatever is appended.
 *
 * A long head is held once: the text appended is copied as UTF-8 into a
 * 1 MB staging buffer, and each time that fills, its bytes become one string
 * (outside the JS heap when ASCII) and the buffer is reused. The result is
 * those strings concatenated, which V8 does without copying (a rope): a
 * 15 MB output kept whole costs 15 MB, not thousands of strings the garbage
 * collector copies from generation to generation, nor a buffer and its
 * decoded copy side by side. {@link CappedText.finishPieces} hands the
 * pieces themselves to a caller that trims or slices the text.
 */
export class CappedText {
  readonly #maxBytes: number;
  readonly #half: number;
  /** The head, in order, but for what sits in the stage (after it); once cut, one string. */
  #head: string[] = [];
  /** Whether the head went past {@link HEAD_PIECES_BYTES}: #head then holds the stage's full loads. */
  #long = false;
  #stage: Buffer | undefined;
  #stageBytes = 0;
  #stageAscii = true;
  #headBytes = 0;
  #tail: string[] = [];
  #tailBytes = 0;
  #totalBytes = 0;
  #overflowed = false;

  readonly #listener: SealListener | undefined;
  /** Where the text last appended went in the stage (`#stagedFrom` -1: not in the stage). */
  #stagedFrom = -1;
  #stagedTo = 0;

  /**
   * @param listener - told when the stage's bytes are reused or let go, and the string they
   * became: a transcript pointing at them (see {@link CappedText.lastStaged}) keeps that string.
   */
  constructor(maxBytes: number, listener?: SealListener) {
    this.#maxBytes = maxBytes;
    this.#half = Math.floor(maxBytes / 2);
    this.#listener = listener;
  }

  /** Bytes appended so far, kept or not. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /**
   * The staging buffer, when the text last appended was copied into it (from
   * {@link CappedText.lastStagedFrom} to {@link CappedText.lastStagedTo}): those bytes stay there
   * until the listener hears otherwise.
   */
  get lastStaged(): Buffer | undefined {
    return this.#stagedFrom === -1 ? undefined : this.#stage;
  }

  get lastStagedFrom(): number {
    return this.#stagedFrom;
  }

  get lastStagedTo(): number {
    return this.#stagedTo;
  }

  append(text: string): void {
    this.#stagedFrom = -1;
    if (text === "") return;
    const stage = this.#stage;
    const most = text.length * 3; // bytes of UTF-8 at most
    if (stage !== undefined && this.#headBytes + most <= this.#maxBytes && this.#stageBytes + most <= STAGE_BYTES && !this.#overflowed) {
      // A long head's next text, with room for it whatever its bytes: encoded without counting them
      // first (a count makes a flat copy of a text joined from pieces, as a long chunk's clean text is).
      const from = this.#stageBytes;
      const bytes = stage.write(text, from, "utf8");
      // As many bytes as characters: ASCII, which Latin-1 would have copied the same.
      if (bytes !== text.length) this.#stageAscii = false;
      this.#totalBytes += bytes;
      this.#headBytes += bytes;
      this.#stagedFrom = from;
      this.#stageBytes = this.#stagedTo = from + bytes;
      return;
    }
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
    this.#headBytes = used;
    if (!this.#long) {
      if (used <= HEAD_PIECES_BYTES) {
        this.#head.push(text);
        return;
      }
      this.#long = true;
      const short = this.#head.join("");
      this.#head = [];
      this.#stageWrite(short, Buffer.byteLength(short));
    }
    this.#stageWrite(text, bytes);
  }

  #stageWrite(text: string, bytes: number): void {
    if (this.#stageBytes + bytes > STAGE_BYTES) {
      this.#seal();
      if (bytes > STAGE_BYTES) {
        this.#head.push(text);
        return;
      }
    }
    const stage = (this.#stage ??= Buffer.allocUnsafeSlow(STAGE_BYTES));
    // ASCII (as many bytes as characters) is copied as is; the rest is encoded.
    if (bytes === text.length) stage.write(text, this.#stageBytes, bytes, "latin1");
    else {
      stage.write(text, this.#stageBytes, bytes, "utf8");
      this.#stageAscii = false;
    }
    this.#stagedFrom = this.#stageBytes;
    this.#stageBytes += bytes;
    this.#stagedTo = this.#stageBytes;
  }

  /** What the stage holds, as text. */
  #staged(): string {
    const stage = this.#stage;
    if (stage === undefined || this.#stageBytes === 0) return "";
    return stage.toString(this.#stageAscii ? "latin1" : "utf8", 0, this.#stageBytes);
  }

  /** The stage's bytes become a piece of the head (at character boundaries: whole appends are staged). */
  #seal(): void {
    if (this.#stageBytes === 0) return;
    const piece = this.#staged();
    const ascii = this.#stageAscii;
    this.#head.push(piece);
    this.#stageBytes = 0;
    this.#stageAscii = true;
    if (this.#stage !== undefined) this.#listener?.onSealed?.(this.#stage, ascii ? piece : undefined);
  }

  /** The stage is let go (its bytes not sealed, or already): the listener is told first. */
  #letStageGo(): void {
    const stage = this.#stage;
    if (stage === undefined) return;
    this.#stage = undefined;
    this.#stagedFrom = -1;
    if (this.#stageBytes > 0) this.#listener?.onSealed?.(stage, undefined);
  }

  /** No more text comes (the owner drops this one): the listener is told the stage goes. */
  abandon(): void {
    this.#letStageGo();
  }

  /** The head as one string (copied: see {@link CappedText.finishPieces} for the text without a copy). */
  #headText(): string {
    const staged = this.#staged();
    if (!this.#long && this.#head.length > 1) this.#head = [this.#head.join("")];
    const head = this.#head.length === 1 ? (this.#head[0] as string) : this.#head.join("");
    return staged === "" ? head : head + staged;
  }

  // The head would go over budget: keep the first half of everything so far (this text included),
  // and start the tail with the rest (at most half a budget of it).
  #overflow(text: string): void {
    this.#overflowed = true;
    const whole = this.#headText() + text;
    this.#long = false;
    this.#letStageGo();
    this.#stageBytes = 0;
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
    if (this.#overflowed) return lastChars(this.#tail.join(""), maxChars);
    const stage = this.#stage;
    let kept = "";
    if (stage !== undefined && this.#stageBytes > 0) {
      // The last characters only: at most 4 bytes each, and a character cut at the start is dropped.
      let from = Math.max(0, this.#stageBytes - maxChars * 4);
      while (from > 0 && ((stage[from] as number) & 0xc0) === 0x80) from++;
      kept = stage.toString("utf8", from, this.#stageBytes);
    }
    for (let index = this.#head.length - 1; index >= 0 && kept.length < maxChars; index--) {
      kept = lastChars(this.#head[index] as string, maxChars - kept.length) + kept;
    }
    return lastChars(kept, maxChars);
  }

  /**
   * The kept text; when something was cut, head and tail are trimmed to
   * whole lines and joined by `marker(omittedBytes)`.
   */
  finish(marker: (omittedBytes: number) => string): CappedTextResult {
    const { pieces, truncated, omittedBytes } = this.finishPieces(marker);
    return { text: concat(pieces), truncated, omittedBytes };
  }

  /**
   * {@link CappedText.finish}, with the text as the pieces it is held in
   * (their concatenation is the text; one piece unless it is long), so that
   * a caller can trim or slice it without copying it whole. Frees the
   * staging buffer; appending after it is allowed.
   */
  finishPieces(marker: (omittedBytes: number) => string): CappedTextPieces {
    if (!this.#overflowed) {
      if (!this.#long) return { pieces: [this.#headText()], truncated: false, omittedBytes: 0 };
      this.#seal();
      this.#letStageGo();
      return { pieces: [...this.#head], truncated: false, omittedBytes: 0 };
    }
    const head = this.#headText();
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
      pieces: [`${keptHead}${separator}${marker(omittedBytes)}\n${tail}`],
      truncated: true,
      omittedBytes,
    };
  }
}

/** The text of {@link CappedText.finishPieces}: `pieces` concatenated. */
export interface CappedTextPieces {
  readonly pieces: readonly string[];
  readonly truncated: boolean;
  readonly omittedBytes: number;
}

/** The pieces as one string, without copying them (V8 makes a rope; it is flattened once, if ever, where it is read). */
export function concat(pieces: readonly string[]): string {
  let text = "";
  for (const piece of pieces) text += piece;
  return text;
}

function lastChars(text: string, maxChars: number): string {
  return text.length > maxChars ? text.slice(text.length - maxChars) : text;
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
