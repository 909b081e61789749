/** Bytes (UTF-8) of clean transcript a session keeps for `history()`. */
const MAX_BYTES = 2 << 20;
/** The size of the blocks the transcript is kept in (a block this size comes from malloc's heap, not its own mapping). */
const BLOCK_BYTES = 64 << 10;
/** The first block's size; it grows (doubling) to {@link BLOCK_BYTES} while it is the only one. */
const FIRST_BYTES = 4096;
/**
 * Appends are gathered up to this many characters and written in one go (a cell makes two or three
 * small ones; each write to the blocks has a fixed cost).
 */
const BATCH_CHARS = 8192;
/**
 * Pieces gathered before they are joined into one (a copy: a slice holds the chunk it was cut from,
 * and this bounds what pending pieces keep alive), still waiting for {@link BATCH_CHARS}.
 */
const BATCH_PIECES = 32;

/** Bytes of a block the transcript holds: `used` of them, from its start. */
interface OwnPart {
  readonly block: Buffer;
  used: number;
}

/** Bytes of a staging buffer someone else holds (a long cell output's), from `from` to `to`. */
interface StagedPart {
  readonly stage: Buffer;
  readonly from: number;
  to: number;
}

type Part = OwnPart | StagedPart | string;

/** Bytes a part holds. */
const sizeOf = (part: Part): number => (typeof part === "string" ? part.length : "block" in part ? part.used : part.to - part.from);

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
 * A long output is not held twice: while a cell's output goes through its
 * 1 MB staging buffer (see `CappedText`), the transcript points at the bytes
 * there ({@link Transcript.appendStaged}), and once they became one of the
 * megabyte strings the output is kept in, at that string
 * ({@link Transcript.sealed}).
 *
 * What falls out is counted: asked for more lines than are kept,
 * {@link Transcript.lastLines} starts with one line `[… N bytes omitted …]`
 * in place of the older lines (and of the oldest kept one, cut by the wrap).
 */
export class Transcript {
  /**
   * What is kept, oldest first: blocks of bytes, bytes of a staging buffer, shared strings (ASCII:
   * a byte a character). The first part's first `start` bytes fell out. A block is full unless
   * another kind of part follows it; only a lone first block is smaller than {@link BLOCK_BYTES}.
   */
  private parts: Part[] = [];
  private start = 0;
  /** Bytes kept. */
  private length = 0;
  /** Blocks whose bytes all fell out (or were shared), for the next ones needed. */
  private spare: Buffer[] = [];
  /** Bytes that fell out. */
  private dropped = 0;
  /** Appended, not yet written to the blocks (see {@link BATCH_CHARS}). */
  private pending: string[] = [];
  private pendingChars = 0;

  append(text: string): void {
    if (text === "") return;
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= BATCH_CHARS) this.flush();
    else if (this.pending.length >= BATCH_PIECES) this.pending = [this.pending.join("")];
  }

  /**
   * Appends the bytes `stage` holds from `from` to `to` (UTF-8), without
   * copying them: the stage's owner calls {@link Transcript.sealed} before it
   * overwrites or lets go of them.
   */
  appendStaged(stage: Buffer, from: number, to: number): void {
    this.flush();
    const bytes = to - from;
    if (bytes <= 0) return;
    if (bytes >= MAX_BYTES) {
      this.write(stage.toString("utf8", from, to));
      return;
    }
    if (this.length + bytes > MAX_BYTES) this.drop(this.length + bytes - MAX_BYTES);
    const last = this.parts[this.parts.length - 1];
    if (last !== undefined && typeof last !== "string" && "stage" in last && last.stage === stage && last.to === from) last.to = to;
    else this.parts.push({ stage, from, to });
    this.length += bytes;
  }

  /**
   * The bytes `stage` holds from its start are about to be overwritten or
   * let go: the parts pointing at them take `piece`, the ASCII string they
   * became, or, without one, a copy of their bytes.
   */
  sealed(stage: Buffer, piece: string | undefined): void {
    const parts = this.parts;
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index] as Part;
      if (typeof part === "string" || !("stage" in part) || part.stage !== stage) continue;
      parts[index] =
        piece !== undefined
          ? piece.slice(part.from, part.to)
          : { block: Buffer.from(stage.subarray(part.from, part.to)), used: part.to - part.from };
    }
  }

  private flush(): void {
    const pending = this.pending;
    if (pending.length === 0) return;
    const text = pending.length === 1 ? (pending[0] as string) : pending.join("");
    this.pending = [];
    this.pendingChars = 0;
    this.write(text);
  }

  private write(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (bytes >= MAX_BYTES) {
      // Only its end is kept: everything before it falls out.
      const encoded = Buffer.from(text);
      this.drop(this.length);
      this.dropped += encoded.length - MAX_BYTES;
      this.copyIn(encoded, encoded.length - MAX_BYTES);
      return;
    }
    // The oldest bytes fall out first: the blocks they free take the new ones.
    if (this.length + bytes > MAX_BYTES) this.drop(this.length + bytes - MAX_BYTES);
    if (bytes !== text.length) {
      const last = this.lastOwn();
      if (last !== undefined && last.used + bytes <= last.block.length) this.put(last, text, bytes, "utf8");
      else this.copyIn(Buffer.from(text), 0);
      return;
    }
    // ASCII: as many bytes as characters, written in place block by block.
    let at = 0;
    while (at < bytes) {
      let last = this.lastOwn();
      if (last === undefined || last.used === last.block.length) last = this.addBlock(bytes - at);
      const count = Math.min(bytes - at, last.block.length - last.used);
      this.put(last, at === 0 && count === bytes ? text : text.slice(at, at + count), count, "latin1");
      at += count;
    }
  }

  /** The last part, when it is a block. */
  private lastOwn(): OwnPart | undefined {
    const parts = this.parts;
    if (parts.length === 0) return undefined;
    const last = parts[parts.length - 1];
    return last === undefined || typeof last === "string" || !("block" in last) ? undefined : last;
  }

  private put(part: OwnPart, text: string, bytes: number, encoding: "latin1" | "utf8"): void {
    part.block.write(text, part.used, bytes, encoding);
    part.used += bytes;
    this.length += bytes;
  }

  /** Appends `encoded` from `from` on, block by block (the caller made room). */
  private copyIn(encoded: Buffer, from: number): void {
    let at = from;
    while (at < encoded.length) {
      let last = this.lastOwn();
      if (last === undefined || last.used === last.block.length) last = this.addBlock(encoded.length - at);
      const copied = encoded.copy(last.block, last.used, at);
      last.used += copied;
      this.length += copied;
      at += copied;
    }
  }

  /** A block with room at its end for some of `wanted` more bytes: the lone first one grown, a spare one, or a new one. */
  private addBlock(wanted: number): OwnPart {
    const only = this.parts.length === 1 ? this.parts[0] : undefined;
    if (only !== undefined && typeof only !== "string" && "block" in only && only.block.length < BLOCK_BYTES) {
      let size = only.block.length * 2;
      while (size < BLOCK_BYTES && size < this.length + wanted) size *= 2;
      const grown = Buffer.allocUnsafeSlow(Math.min(size, BLOCK_BYTES));
      only.block.copy(grown, 0, this.start, only.used);
      const part = { block: grown, used: only.used - this.start };
      this.parts[0] = part;
      this.start = 0;
      return part;
    }
    const first = this.parts.length === 0;
    const block = this.spare.pop() ?? Buffer.allocUnsafeSlow(first ? Math.min(BLOCK_BYTES, Math.max(FIRST_BYTES, wanted)) : BLOCK_BYTES);
    const part = { block, used: 0 };
    this.parts.push(part);
    if (first) this.start = 0;
    return part;
  }

  /** A block none of whose bytes are kept any more: a full-size one is reused, a small lone first one let go. */
  private recycle(block: Buffer): void {
    if (block.length === BLOCK_BYTES) this.spare.push(block);
  }

  /** The oldest `bytes` kept fall out; parts left with none of the kept bytes go. */
  private drop(bytes: number): void {
    this.dropped += bytes;
    this.length -= bytes;
    this.start += bytes;
    while (this.parts.length > 0) {
      const first = this.parts[0] as Part;
      const size = sizeOf(first);
      if (this.start < size) break;
      this.start -= size;
      this.parts.shift();
      if (typeof first !== "string" && "block" in first) this.recycle(first.block);
    }
    if (this.parts.length === 0) this.start = 0;
  }

  /** The kept bytes, in order (a copy when they are in more than one part). */
  private bytes(): Buffer {
    const parts = this.parts;
    const bytesOf = (part: Part, from: number): Buffer =>
      typeof part === "string"
        ? Buffer.from(part.slice(from), "latin1")
        : "block" in part
          ? part.block.subarray(from, part.used)
          : part.stage.subarray(part.from + from, part.to);
    if (parts.length === 0) return Buffer.alloc(0);
    if (parts.length === 1) return bytesOf(parts[0] as Part, this.start);
    return Buffer.concat(
      parts.map((part, index) => bytesOf(part, index === 0 ? this.start : 0)),
      this.length,
    );
  }

  /**
   * The last `count` lines, `\n`-joined; when older ones fell out, the first
   * line says how many bytes are missing (see {@link Transcript}).
   */
  lastLines(count: number): string {
    this.flush();
    const bytes = this.bytes();
    // Bytes of a character cut by the wrap are counted with what fell out.
    let from = 0;
    while (from < bytes.length && ((bytes[from] as number) & 0xc0) === 0x80) from++;
    const dropped = this.dropped + from;
    const text = bytes.toString("utf8", from);
    const body = text.endsWith("\n") ? text.slice(0, -1) : text;
    if (body === "") return this.dropped > 0 ? omitted(dropped) : "";
    let start = body.length;
    for (let found = 0; found < count; found++) {
      // (From 0, lastIndexOf would find a newline at 0 again: an empty first line.)
      const newline = start === 0 ? -1 : body.lastIndexOf("\n", start - 1);
      if (newline === -1) {
        if (this.dropped === 0) return body;
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
  // Escaped, as in every module a driver loads: one non-ASCII character makes V8 hold the module's whole source at two bytes a character.
  return `[\u2026 ${bytes} bytes omitted \u2026]`;
}
