/** Longest text converted through the scratch buffer; longer ones (rare: chunks are ~4 kB) use `replaceAll`. */
const MAX_SCRATCH_CHARS = 1 << 20;

/** Shorter texts are tested by a regular expression, not scanned byte by byte (see {@link scanPlainChunk}). */
const SCAN_MIN_CHARS = 256;

/** Scratch space for {@link crlfToLf}: grows to the longest text converted, at most 2 MB. */
let scratch: Buffer | undefined;

/**
 * The last chunk {@link scanPlainChunk} found plain, with its CRs before LFs already dropped: its
 * LF-only bytes stay in their own buffer until the next scan, for {@link crlfToLf} to read.
 */
interface Scanned {
  raw: string | undefined;
  /** The chunk's bytes with every CR before an LF dropped (a CR at its very end kept). */
  readonly bytes: Buffer;
  /** `bytes`, read and written four at a time. */
  readonly view: DataView;
  /** How many of `bytes` hold that. */
  length: number;
  /** Whether every LF in the chunk comes right after a CR. */
  crlfOnly: boolean;
}

let scanned: Scanned | undefined;

/** The last short text {@link scanPlainChunk} found plain (tested whole, not scanned), and whether its LFs all follow a CR. */
let shortScanned: string | undefined;
let shortCrlfOnly = false;
/** An LF without a CR before it. */
const LONE_LF = /(?:^|[^\r])\n/;

/** Whether `text` holds an LF without a CR before it (CR LF alone cannot give it back). */
export function hasLoneLf(text: string): boolean {
  return LONE_LF.test(text);
}

/**
 * Whether `text` is plain: no control character but TAB, LF and CR, and
 * CR only before LF or at its very end (what `LineAssembler` takes on its
 * fast path). `afterCr` says a CR came just before `text` (held back from the
 * chunk before).
 *
 * An ASCII chunk is looked at once, byte by byte: the same pass drops its
 * CRs before LFs and notes whether any LF had no CR, so that
 * {@link crlfToLf} on parts of it reads the result instead of converting
 * them again, and {@link isCrlfOnly} answers without a search. Anything
 * else is tested with a regular expression.
 */
export function scanPlainChunk(text: string, afterCr = false): boolean {
  const length = text.length;
  if (scanned !== undefined) scanned.raw = undefined;
  shortScanned = undefined;
  // A short text (a prompt, an echo, a line of a shell-integration cell) is tested as a whole: its
  // bytes would not be mirrored anyway (see RawStore), and a loop per byte run for every small chunk
  // gets hot (and compiled) within the first cells of a session.
  if (length < SCAN_MIN_CHARS) {
    const plain = !NEEDS_SLOW_PATH.test(text);
    shortScanned = plain ? text : undefined;
    shortCrlfOnly = plain && !LONE_LF.test(afterCr && text.charCodeAt(0) === 10 ? text.slice(1) : text);
    return plain;
  }
  if (length > MAX_SCRATCH_CHARS || Buffer.byteLength(text) !== length) return !NEEDS_SLOW_PATH.test(text);
  return scanLong(text, afterCr);
}

/**
 * {@link scanPlainChunk} of a long ASCII text, byte by byte. A function of its own: it gets hot
 * only in a long output, and then with its own type feedback (in one with the short path, the
 * optimized code made from that path's feedback was thrown away twice when the first long chunk
 * came, and compiled again each time).
 */
function scanLong(text: string, afterCr: boolean): boolean {
  const length = text.length;
  // One byte to spare: the held CR below is written unconditionally.
  if (scanned === undefined || scanned.bytes.length <= length) {
    const bytes = Buffer.allocUnsafeSlow(Math.max(length + 1, 1 << 16));
    scanned = { raw: undefined, bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.length), length: 0, crlfOnly: true };
  }
  const bytes = scanned.bytes;
  const view = scanned.view;
  bytes.write(text, 0, length, "latin1");
  // Rare cases are not branches of their own here (the optimized code would be thrown away when
  // one came first): an LF the text starts with, after a CR held before it, is skipped over in
  // place; a CR at the very end (held by the caller) is left out of the loop and put back after it.
  let at = (afterCr ? 1 : 0) & (bytes[0] === 10 ? 1 : 0);
  let out = at;
  const end = length - (bytes[length - 1] === 13 ? 1 : 0);
  let crlfOnly = true;
  const lastWord = end - 4;
  // `| 0` keeps both indexes 32-bit integers in the optimized loop (`out` has no bound the compiler
  // sees: without it, each step checks for an overflow and a tagged value; 10% fewer instructions).
  while (at < end) {
    if (at <= lastWord) {
      // Four characters at a time while all four are printable (the text is ASCII: a byte under
      // 0x20 borrows into its top bit, DEL carries into it), copied as one word; little-endian both ways.
      const word = view.getInt32(at, true);
      const stops = ((word - 0x20202020) | (word + 0x01010101)) & 0x80808080;
      if (stops === 0) {
        view.setInt32(out, word, true);
        at = (at + 4) | 0;
        out = (out + 4) | 0;
        continue;
      }
      // The printable ones before the first that is not (a borrow only sets bits above it), when a
      // CR LF follows them: they and the LF at once, once the bytes kept lag the bytes read by enough
      // that the word written whole overwrites only bytes read already (after a few lines).
      const printable = (31 - Math.clz32(stops & -stops)) >> 3;
      const cr = at + printable;
      if (bytes[cr] === 13 && bytes[cr + 1] === 10 && at - out >= 4 - printable) {
        view.setInt32(out, word, true);
        out = (out + printable) | 0;
        bytes[out] = 10;
        out = (out + 1) | 0;
        at = (cr + 2) | 0;
        continue;
      }
    }
    // One byte.
    const byte = bytes[at] as number;
    if (byte > 13) {
      if (byte < 0x20 || byte === 0x7f) return false;
      bytes[out] = byte;
      out = (out + 1) | 0;
      at = (at + 1) | 0;
    } else if (byte === 13) {
      // CR LF goes as LF, in one step.
      if (bytes[at + 1] !== 10) return false;
      bytes[out] = 10;
      out = (out + 1) | 0;
      at = (at + 2) | 0;
    } else {
      if (byte === 10) crlfOnly = false;
      else if (byte !== 9) return false;
      bytes[out] = byte;
      out = (out + 1) | 0;
      at = (at + 1) | 0;
    }
  }
  // The held CR is kept, so that what comes before it maps as it is.
  bytes[out] = 13;
  scanned.raw = text;
  scanned.length = out + length - end;
  scanned.crlfOnly = crlfOnly;
  return true;
}

/**
 * Whether `text`, the chunk {@link scanPlainChunk} last found plain, has
 * CR LF line ends only (no LF without a CR before it). `false` when it does
 * not know.
 */
export function isCrlfOnly(text: string): boolean {
  if (shortScanned === text) return shortCrlfOnly;
  return scanned !== undefined && scanned.raw === text && scanned.crlfOnly;
}

// Anything but plain text, tab and "\r\n" (C1 controls too); a CR at the very end is not matched.
// (`\r[^\n]` costs half what `\r(?!\n)` does.)
const NEEDS_SLOW_PATH = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r[^\n]/;

/** CRs in `text` from `from` to `to` that {@link scanPlainChunk} dropped (all but one at the very end). */
function droppedCrs(text: string, from: number, to: number): number {
  const end = Math.min(to, text.length - 1);
  let count = 0;
  for (let at = from; at < end; at++) if (text.charCodeAt(at) === 13) count++;
  return count;
}

/**
 * `text.slice(from, to)` with CR LF as LF, where every CR in that part is
 * followed by an LF (plain output: see `LineSink.block`).
 *
 * For the chunk {@link scanPlainChunk} last found plain, the part is read
 * from what the scan left (a part starting and ending near the chunk's
 * ends: only the CRs outside it are counted). Otherwise it is copied into a
 * reused buffer, its CRs dropped in one pass and the rest read back: a third
 * of what `replaceAll("\r\n", "\n")` costs on output of short lines (one
 * replacement per line), which a 15 MB output of numbers pays two million
 * times.
 */
export function crlfToLf(text: string, from: number, to: number): string {
  const seen = scanned;
  if (seen !== undefined && seen.raw === text && to > from && text.charCodeAt(to - 1) !== 13) {
    const length = text.length;
    if (from + (length - to) <= 1024) {
      const start = from - droppedCrs(text, 0, from);
      const end = seen.length - (length - to - droppedCrs(text, to, length));
      return seen.bytes.toString("latin1", start, end);
    }
  }
  const part = text.slice(from, to);
  const length = part.length;
  if (length > MAX_SCRATCH_CHARS) return part.replaceAll("\r\n", "\n");
  // ASCII goes through as one byte per character; anything else as UTF-16 code units, exactly.
  const ascii = Buffer.byteLength(part) === length;
  const bytes = ascii ? length : length * 2;
  if (scratch === undefined || scratch.length < bytes) scratch = Buffer.allocUnsafeSlow(Math.max(bytes, 1 << 16));
  const buffer = scratch;
  buffer.write(part, 0, bytes, ascii ? "latin1" : "utf16le");
  if (ascii) {
    let out = buffer.indexOf(13);
    if (out === -1 || out >= length) return part;
    for (let at = out + 1; at < length; at++) {
      const byte = buffer[at] as number;
      if (byte !== 13) buffer[out++] = byte;
    }
    return buffer.toString("latin1", 0, out);
  }
  const units = new Uint16Array(buffer.buffer, buffer.byteOffset, length);
  let out = units.indexOf(13);
  if (out === -1) return part;
  for (let at = out + 1; at < length; at++) {
    const unit = units[at] as number;
    if (unit !== 13) units[out++] = unit;
  }
  return buffer.toString("utf16le", 0, out * 2);
}
