/** Bytes (UTF-8) of clean transcript a session keeps for `history()`. */
const MAX_BYTES = 2 << 20;
/** The first buffer's size; it grows as needed, up to {@link MAX_BYTES}. */
const FIRST_BYTES = 4096;
/**
 * Appends are gathered up to this many characters, or {@link BATCH_PIECES} pieces, and written
 * in one go (a cell makes two or three small ones; each write to the ring has a fixed cost).
 */
const BATCH_CHARS = 8192;
/** Also bounds what pending pieces keep alive (a slice holds the chunk it was cut from). */
const BATCH_PIECES = 32;

/**
 * The clean transcript of a session, bounded: cells' input lines and output
 * as a person would have read them.
 *
 * Kept as UTF-8 bytes in a ring outside the JS heap: everything a session
 * prints passes through here, and strings held for the last 2 MB of it would
 * each be copied by the garbage collector until they fall out (a 15 MB output
 * left 15 MB of them behind in the old generation).
 *
 * What falls out is counted: asked for more lines than are kept,
 * {@link Transcript.lastLines} starts with one line `[… N bytes omitted …]`
 * in place of the older lines (and of the oldest kept one, cut by the wrap).
 */
export class Transcript {
  #buffer: Buffer | undefined;
  /** Where the oldest byte is, and how many bytes are kept. */
  #start = 0;
  #length = 0;
  /** Bytes that fell out of the ring. */
  #dropped = 0;
  /** Appended, not yet written to the ring (see {@link BATCH_CHARS}). */
  #pending: string[] = [];
  #pendingChars = 0;

  append(text: string): void {
    if (text === "") return;
    this.#pending.push(text);
    this.#pendingChars += text.length;
    if (this.#pendingChars >= BATCH_CHARS || this.#pending.length >= BATCH_PIECES) this.#flush();
  }

  #flush(): void {
    const pending = this.#pending;
    if (pending.length === 0) return;
    const text = pending.length === 1 ? (pending[0] as string) : pending.join("");
    this.#pending = [];
    this.#pendingChars = 0;
    this.#write(text);
  }

  #write(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (bytes >= MAX_BYTES) {
      const encoded = Buffer.from(text);
      this.#dropped += this.#length + encoded.length - MAX_BYTES;
      this.#buffer = Buffer.allocUnsafeSlow(MAX_BYTES);
      encoded.copy(this.#buffer, 0, encoded.length - MAX_BYTES);
      this.#start = 0;
      this.#length = MAX_BYTES;
      return;
    }
    this.#reserve(bytes);
    const buffer = this.#buffer as Buffer;
    const end = (this.#start + this.#length) % buffer.length;
    if (end + bytes <= buffer.length) {
      buffer.write(text, end, bytes, bytes === text.length ? "latin1" : "utf8");
    } else {
      const encoded = Buffer.from(text);
      const first = buffer.length - end;
      encoded.copy(buffer, end, 0, first);
      encoded.copy(buffer, 0, first);
    }
    const overflow = this.#length + bytes - buffer.length;
    if (overflow > 0) {
      this.#dropped += overflow;
      this.#start = (this.#start + overflow) % buffer.length;
      this.#length = buffer.length;
    } else {
      this.#length += bytes;
    }
  }

  /** Room for `bytes` more: the buffer grows (doubling) until it has the most it may hold, then wraps. */
  #reserve(bytes: number): void {
    const buffer = this.#buffer;
    const needed = this.#length + bytes;
    if (buffer !== undefined && (needed <= buffer.length || buffer.length === MAX_BYTES)) return;
    let size = buffer?.length ?? FIRST_BYTES;
    while (size < needed && size < MAX_BYTES) size *= 2;
    const grown = Buffer.allocUnsafeSlow(Math.min(size, MAX_BYTES));
    if (buffer !== undefined) this.#bytes().copy(grown);
    this.#buffer = grown;
    this.#start = 0;
  }

  /** The kept bytes, in order. */
  #bytes(): Buffer {
    const buffer = this.#buffer;
    if (buffer === undefined) return Buffer.alloc(0);
    if (this.#start + this.#length <= buffer.length) return buffer.subarray(this.#start, this.#start + this.#length);
    return Buffer.concat([buffer.subarray(this.#start), buffer.subarray(0, this.#start + this.#length - buffer.length)]);
  }

  /**
   * The last `count` lines, `\n`-joined; when older ones fell out, the first
   * line says how many bytes are missing (see {@link Transcript}).
   */
  lastLines(count: number): string {
    this.#flush();
    const bytes = this.#bytes();
    // Bytes of a character cut by the wrap are counted with what fell out.
    let from = 0;
    while (from < bytes.length && ((bytes[from] as number) & 0xc0) === 0x80) from++;
    const dropped = this.#dropped + from;
    const text = bytes.toString("utf8", from);
    const body = text.endsWith("\n") ? text.slice(0, -1) : text;
    if (body === "") return this.#dropped > 0 ? omitted(dropped) : "";
    let start = body.length;
    for (let found = 0; found < count; found++) {
      const newline = body.lastIndexOf("\n", start - 1);
      if (newline === -1) {
        if (this.#dropped === 0) return body;
        // The oldest kept line was cut by the wrap: it is counted with what fell out.
        const first = body.indexOf("\n");
        if (first === -1) return omitted(dropped + Buffer.byteLength(body));
        return `${omitted(dropped + Buffer.byteLength(body.slice(0, first + 1)))}\n${body.slice(first + 1)}`;
      }
      start = newline;
    }
    return body.slice(start + 1);
  }
}

/** The line standing for transcript that fell out of the ring. */
function omitted(bytes: number): string {
  return `[… ${bytes} bytes omitted …]`;
}
