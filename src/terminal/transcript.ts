/** Bytes (UTF-8) of clean transcript a session keeps for `history()`. */
const MAX_BYTES = 2 << 20;
/** The size of the blocks the transcript is kept in (a block this size comes from malloc's heap, not its own mapping). */
const BLOCK_BYTES = 64 << 10;
/** The first block's size; it grows (doubling) to {@link BLOCK_BYTES} while it is the only one. */
const FIRST_BYTES = 4096;
/**
 * Appends are gathered up to this many characters, or {@link BATCH_PIECES} pieces, and written
 * in one go (a cell makes two or three small ones; each write to the blocks has a fixed cost).
 */
const BATCH_CHARS = 8192;
/** Also bounds what pending pieces keep alive (a slice holds the chunk it was cut from). */
const BATCH_PIECES = 32;

/**
 * The clean transcript of a session, bounded: cells' input lines and output
 * as a person would have read them.
 *
 * Kept as UTF-8 bytes outside the JS heap: everything a session prints
 * passes through here, and strings held for the last 2 MB of it would each
 * be copied by the garbage collector until they fall out (a 15 MB output
 * left 15 MB of them behind in the old generation). The bytes sit in blocks
 * of 64 kB, added as the transcript grows and reused once what they hold
 * has fallen out: growing never copies what is kept nor leaves a smaller
 * buffer behind for the garbage collector to free (a ring that doubled to
 * 2 MB left 2 MB of them allocated until the next full collection).
 *
 * What falls out is counted: asked for more lines than are kept,
 * {@link Transcript.lastLines} starts with one line `[… N bytes omitted …]`
 * in place of the older lines (and of the oldest kept one, cut by the wrap).
 */
export class Transcript {
  /**
   * The kept bytes, oldest first, from `#start` in the first block to `#end` in the last; every
   * block but the last is full. Only a lone first block is smaller than {@link BLOCK_BYTES}.
   */
  #blocks: Buffer[] = [];
  #start = 0;
  #end = 0;
  /** Bytes kept. */
  #length = 0;
  /** Blocks whose bytes all fell out, for the next ones needed. */
  #spare: Buffer[] = [];
  /** Bytes that fell out. */
  #dropped = 0;
  /** Appended, not yet written to the blocks (see {@link BATCH_CHARS}). */
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
      // Only its end is kept: everything before it falls out.
      const encoded = Buffer.from(text);
      this.#drop(this.#length);
      this.#dropped += encoded.length - MAX_BYTES;
      this.#copyIn(encoded, encoded.length - MAX_BYTES);
      return;
    }
    // The oldest bytes fall out first: the blocks they free take the new ones.
    if (this.#length + bytes > MAX_BYTES) this.#drop(this.#length + bytes - MAX_BYTES);
    if (bytes !== text.length) {
      const last = this.#blocks[this.#blocks.length - 1];
      if (last !== undefined && this.#end + bytes <= last.length) this.#put(last, text, bytes, "utf8");
      else this.#copyIn(Buffer.from(text), 0);
      return;
    }
    // ASCII: as many bytes as characters, written in place block by block.
    let at = 0;
    while (at < bytes) {
      let last = this.#blocks[this.#blocks.length - 1];
      if (last === undefined || this.#end === last.length) last = this.#addBlock(bytes - at);
      const count = Math.min(bytes - at, last.length - this.#end);
      this.#put(last, at === 0 && count === bytes ? text : text.slice(at, at + count), count, "latin1");
      at += count;
    }
  }

  #put(block: Buffer, text: string, bytes: number, encoding: "latin1" | "utf8"): void {
    block.write(text, this.#end, bytes, encoding);
    this.#end += bytes;
    this.#length += bytes;
  }

  /** Appends `encoded` from `from` on, block by block (the caller made room). */
  #copyIn(encoded: Buffer, from: number): void {
    let at = from;
    while (at < encoded.length) {
      let last = this.#blocks[this.#blocks.length - 1];
      if (last === undefined || this.#end === last.length) last = this.#addBlock(encoded.length - at);
      const copied = encoded.copy(last, this.#end, at);
      this.#end += copied;
      this.#length += copied;
      at += copied;
    }
  }

  /** A block with room at its end for some of `wanted` more bytes: the lone first one grown, a spare one, or a new one. */
  #addBlock(wanted: number): Buffer {
    const only = this.#blocks.length === 1 ? (this.#blocks[0] as Buffer) : undefined;
    if (only !== undefined && only.length < BLOCK_BYTES) {
      let size = only.length * 2;
      while (size < BLOCK_BYTES && size < this.#length + wanted) size *= 2;
      const grown = Buffer.allocUnsafeSlow(Math.min(size, BLOCK_BYTES));
      only.copy(grown, 0, this.#start, this.#end);
      this.#blocks[0] = grown;
      this.#end -= this.#start;
      this.#start = 0;
      return grown;
    }
    const first = this.#blocks.length === 0;
    const block = this.#spare.pop() ?? Buffer.allocUnsafeSlow(first ? Math.min(BLOCK_BYTES, Math.max(FIRST_BYTES, wanted)) : BLOCK_BYTES);
    this.#blocks.push(block);
    this.#end = 0;
    if (first) this.#start = 0;
    return block;
  }

  /** The oldest `bytes` kept fall out; blocks left with none of the kept bytes become spares. */
  #drop(bytes: number): void {
    this.#dropped += bytes;
    this.#length -= bytes;
    this.#start += bytes;
    while (this.#blocks.length > 0) {
      const first = this.#blocks[0] as Buffer;
      const used = this.#blocks.length === 1 ? this.#end : first.length;
      if (this.#start < used) break;
      this.#start -= used;
      this.#blocks.shift();
      // A spare block is a full-size one: a small lone first block is let go.
      if (first.length === BLOCK_BYTES) this.#spare.push(first);
    }
    if (this.#blocks.length === 0) {
      this.#start = 0;
      this.#end = 0;
    }
  }

  /** The kept bytes, in order (a copy when they span blocks). */
  #bytes(): Buffer {
    const blocks = this.#blocks;
    if (blocks.length === 0) return Buffer.alloc(0);
    if (blocks.length === 1) return (blocks[0] as Buffer).subarray(this.#start, this.#end);
    const parts = blocks.map((block, index) =>
      index === 0 ? block.subarray(this.#start) : index === blocks.length - 1 ? block.subarray(0, this.#end) : block,
    );
    return Buffer.concat(parts, this.#length);
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
      // (From 0, lastIndexOf would find a newline at 0 again: an empty first line.)
      const newline = start === 0 ? -1 : body.lastIndexOf("\n", start - 1);
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

/** The line standing for transcript that fell out. */
function omitted(bytes: number): string {
  return `[… ${bytes} bytes omitted …]`;
}
