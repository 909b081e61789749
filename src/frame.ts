import { CappedText, concat, type SealListener } from "./internal/capped-text.js";
import { MIN_RANGE_CHARS, RawStore } from "./internal/raw-store.js";

/** The marker line put in place of the middle of a truncated output. */
export function omittedMarker(bytes: number): string {
  // Escaped, as in every module a driver loads: one non-ASCII character makes V8 hold the module's whole source at two bytes a character.
  return `[\u2026 ${bytes} bytes omitted \u2026]`;
}

/**
 * Clean output up to this many bytes (counted as 3 a character) is held as one string; past it, in a
 * {@link CappedText}. Well below CappedText's own first threshold (64 kB, where it starts staging).
 */
const SMALL_OUTPUT_BYTES = 16 * 1024;

/** The output of one frame, finished. */
export interface FrameOutput {
  readonly output: string;
  readonly truncated: boolean;
  readonly omittedBytes: number;
  /**
   * The raw text, or a function that builds it: the raw text of plain output
   * is not held twice, it is rebuilt from the clean output when asked for
   * (see {@link defineRaw}).
   */
  readonly raw: string | (() => string);
  readonly rawOmittedBytes: number;
}

/**
 * Puts `raw` on `target` (a result that has a `raw` property already, so its
 * place among the keys stays): as it is, or built on first read and kept.
 */
export function defineRaw(target: { raw: string }, raw: string | (() => string)): void {
  if (typeof raw === "string") {
    target.raw = raw;
    return;
  }
  Object.defineProperty(target, "raw", {
    configurable: true,
    enumerable: true,
    get() {
      const text = raw();
      Object.defineProperty(target, "raw", { value: text, writable: true, configurable: true, enumerable: true });
      return text;
    },
  });
}

/**
 * What the terminal produced between writing a cell (or starting the
 * program) and the frame's end: the clean output, bounded, and the raw bytes.
 * One per cell; members TypeScript-`private`, not `#private` (cheaper an access, see `CellLifecycle`).
 */
export class FrameCollector implements SealListener {
  /**
   * The clean output once it may need its cap or its staging buffer; until then (most cells: a few
   * lines) it is {@link FrameCollector.small}, one string, as CappedText would hold it.
   */
  private output: CappedText | undefined;
  /** The clean output while it is short (see {@link SMALL_OUTPUT_BYTES}). */
  private small = "";
  /**
   * The raw text once it is long, or a part of it was mirrored (see {@link FrameCollector.addMirrored});
   * until then (most cells) it is {@link FrameCollector.rawSmall}, one string, as the store would give it.
   */
  private raw: RawStore | undefined;
  /** The raw text while it is short and nothing was mirrored (see {@link SMALL_OUTPUT_BYTES}). */
  private rawSmall = "";
  /** Where the chunk last given to `appendRaw` starts in {@link FrameCollector.rawSmall} (-1: none is open). */
  private rawOpenFrom = -1;
  /** The raw text may no longer point into the clean output (it was about to be cut) before a store was made. */
  private rawRangesOff = false;
  private readonly maxBytes: number;
  /** Clean text added since the last flush (a few short pieces a cell: joined as they come, no list made). */
  private pending = "";
  /** Clean characters flushed into the output (since the start, or the last discard). */
  private cleanChars = 0;
  /** False once the clean output went over its cap: raw text can no longer point into it. */
  private rawRanges = true;
  /** False once the detector said output is over (the rest is prompt). */
  collecting = true;
  /** Told when the staging buffer's bytes a long output goes through are reused or let go (see `CappedText`). */
  onSealed: ((stage: Buffer, piece: string | undefined) => void) | undefined;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The raw text's store, made when first needed: what it held as one string goes in first, its open chunk last. */
  private rawStore(): RawStore {
    let store = this.raw;
    if (store !== undefined) return store;
    store = new RawStore(this.maxBytes, () => this.outputText());
    if (this.rawRangesOff) store.materialize(false);
    const small = this.rawSmall;
    const open = this.rawOpenFrom;
    if (open === -1) {
      if (small !== "") store.append(small);
      store.append("");
    } else {
      if (open > 0) store.append(small.slice(0, open));
      store.append(small.slice(open));
    }
    this.rawSmall = "";
    this.raw = store;
    return store;
  }

  /** The clean output flushed so far, uncut. */
  private outputText(): string {
    return this.output === undefined ? this.small : this.output.peek();
  }

  /** Adds a chunk of raw terminal text, before its clean text is added. */
  appendRaw(text: string): void {
    const store = this.raw;
    if (store !== undefined) {
      store.append(text);
      return;
    }
    if (text === "") {
      this.rawOpenFrom = -1; // as the store: the chunk before is complete, none is open
      return;
    }
    // Short enough, even at 3 bytes a character, that no cap is near: one string.
    if ((this.rawSmall.length + text.length) * 3 <= Math.min(this.maxBytes, SMALL_OUTPUT_BYTES)) {
      this.rawOpenFrom = this.rawSmall.length;
      this.rawSmall += text;
      return;
    }
    this.rawStore().append(text);
  }

  /** Adds clean text; taken in by `flush()`. */
  add(text: string): void {
    if (!this.collecting) return;
    this.pending += text;
    // Before a store is made nothing was mirrored: the clean text between mirrored parts only matters after one.
    this.raw?.cleanAdded(text);
  }

  /**
   * Adds clean text that is `raw.slice(rawFrom, rawTo)` with CR LF as LF,
   * `raw` being the chunk last given to `appendRaw`: that part of the raw
   * text is then not held a second time. `crlfOnly`: the caller knows every
   * LF in that part comes after a CR.
   */
  addMirrored(text: string, raw: string, rawFrom: number, rawTo: number, crlfOnly = false): void {
    if (!this.collecting) return;
    const start = this.cleanChars + this.pending.length;
    this.pending += text;
    // A part too short for a range leaves the raw text as it is (the store would ignore it).
    if (this.raw === undefined && rawTo - rawFrom < MIN_RANGE_CHARS) return;
    this.rawStore().mirror(raw, rawFrom, rawTo, start, start + text.length, crlfOnly);
  }

  /** Moves what `add()` gathered into the output; returns it. */
  flush(): string {
    const text = this.pending;
    if (text === "") return "";
    this.pending = "";
    let output = this.output;
    if (output === undefined) {
      // Short enough, even at 3 bytes a character, that no cap or staging buffer can be near.
      if ((this.cleanChars + text.length) * 3 <= Math.min(this.maxBytes, SMALL_OUTPUT_BYTES)) {
        this.small += text;
        this.cleanChars += text.length;
        return text;
      }
      // From now on it is held as a long output would be: what it held so far goes in first.
      output = new CappedText(this.maxBytes, this);
      output.append(this.small);
      this.small = "";
      this.output = output;
    }
    const total = output.totalBytes;
    if (this.rawRanges && total + text.length * 3 > this.maxBytes && total + Buffer.byteLength(text) > this.maxBytes) {
      // The clean output is about to be cut: raw text pointing into it becomes text again.
      if (this.raw === undefined) this.rawRangesOff = true;
      else this.raw.materialize(false);
      this.rawRanges = false;
    }
    output.append(text);
    this.cleanChars += text.length;
    return text;
  }

  /**
   * The staging buffer the text `flush()` last returned was copied into, from `lastStagedFrom` to
   * `lastStagedTo` (see `CappedText.lastStaged`); undefined when it was not.
   */
  get lastStaged(): Buffer | undefined {
    return this.output?.lastStaged;
  }

  get lastStagedFrom(): number {
    return this.output?.lastStagedFrom ?? -1;
  }

  get lastStagedTo(): number {
    return this.output?.lastStagedTo ?? 0;
  }

  /** Forgets the output so far (it was echo). */
  discard(): void {
    this.raw?.materialize(true);
    this.pending = "";
    this.cleanChars = 0;
    this.small = "";
    // Usually nothing reached the output yet (the echo was never collected): the empty one is kept.
    if (this.output !== undefined && this.output.totalBytes > 0) {
      this.output.abandon();
      this.output = undefined;
    }
  }

  /** The output so far, uncut. */
  peek(): string {
    const text = this.outputText() + this.pending;
    return text.endsWith("\n") ? text.slice(0, -1) : text;
  }

  /**
   * The frame's output, without its final newline and the last `dropLines`
   * lines, then without `dropSuffix` where it ends with it. A long output is
   * not copied: it is handed over as the rope of the pieces it was held in
   * (see `CappedText`), and its raw text refers to them.
   */
  finish(dropLines = 0, dropSuffix = ""): FrameOutput {
    if (this.pending !== "") this.flush();
    if (this.output === undefined && this.raw === undefined && dropLines === 0 && dropSuffix === "") {
      // A short output with nothing to drop (most cells): its one string without its final newline, its raw text as it came.
      const small = this.small;
      return {
        output: small.endsWith("\n") ? small.slice(0, -1) : small,
        truncated: false,
        omittedBytes: 0,
        raw: this.rawSmall,
        rawOmittedBytes: 0,
      };
    }
    return this.finishPieces(dropLines, dropSuffix);
  }

  /** {@link FrameCollector.finish} for a long output, or lines or text to drop (apart: compiled only when first needed). */
  private finishPieces(dropLines: number, dropSuffix: string): FrameOutput {
    // A short output is one string (no cap, no staging): its raw ranges resolve through outputText().
    const capped = this.output?.finishPieces(omittedMarker);
    const raw =
      this.raw === undefined
        ? { text: this.rawSmall, omittedBytes: 0 }
        : this.raw.finish(capped === undefined || capped.truncated ? undefined : capped.pieces, omittedMarker);
    // One piece and no line to drop (most cells): only its final newline goes, with no piece lists made.
    const only =
      dropLines > 0 || dropSuffix !== ""
        ? undefined
        : capped === undefined
          ? this.small
          : capped.pieces.length === 1
            ? capped.pieces[0]
            : undefined;
    return {
      output:
        only === undefined
          ? concat(dropTrailingText(dropTrailingLines(trimFinalNewline(capped?.pieces ?? [this.small]), dropLines), dropSuffix))
          : only.endsWith("\n")
            ? only.slice(0, -1)
            : only,
      truncated: capped?.truncated ?? false,
      omittedBytes: capped?.omittedBytes ?? 0,
      raw: raw.text,
      rawOmittedBytes: raw.omittedBytes,
    };
  }
}

/** Where the text of `pieces` ends: before `end` characters of piece `index`. */
interface PiecesEnd {
  readonly index: number;
  readonly end: number;
}

/** `pieces` up to `at`, sharing the pieces before it. */
function piecesUpTo(pieces: readonly string[], at: PiecesEnd): readonly string[] {
  const last = pieces[at.index];
  if (last === undefined) return [];
  if (at.end === last.length && at.index === pieces.length - 1) return pieces;
  return [...pieces.slice(0, at.index), last.slice(0, at.end)];
}

/** The end of `pieces`, the empty ones at the end left out. */
function lastEnd(pieces: readonly string[]): PiecesEnd {
  let index = pieces.length - 1;
  while (index > 0 && pieces[index] === "") index--;
  return { index, end: pieces[index]?.length ?? 0 };
}

function trimFinalNewline(pieces: readonly string[]): readonly string[] {
  const at = lastEnd(pieces);
  const last = pieces[at.index];
  if (last === undefined || !last.endsWith("\n")) return pieces;
  return piecesUpTo(pieces, { index: at.index, end: at.end - 1 });
}

function dropTrailingLines(pieces: readonly string[], count: number): readonly string[] {
  if (count <= 0) return pieces;
  let { index, end } = lastEnd(pieces);
  for (let dropped = 0; dropped < count && (end > 0 || index > 0);) {
    const newline = end > 0 ? (pieces[index] as string).lastIndexOf("\n", end - 1) : -1;
    if (newline !== -1) {
      end = newline;
      dropped++;
    } else if (index === 0) {
      end = 0;
      dropped++;
    } else {
      index--;
      end = (pieces[index] as string).length;
    }
  }
  return piecesUpTo(pieces, { index, end });
}

/** `pieces` without `suffix` at their end, when they end with it (it may span pieces); as they are otherwise. */
function dropTrailingText(pieces: readonly string[], suffix: string): readonly string[] {
  if (suffix === "") return pieces;
  let { index, end } = lastEnd(pieces);
  for (let left = suffix.length; left > 0;) {
    const piece = pieces[index] as string | undefined;
    if (piece === undefined) return pieces;
    const take = Math.min(left, end);
    if (piece.slice(end - take, end) !== suffix.slice(left - take, left)) return pieces;
    left -= take;
    end -= take;
    if (left > 0) {
      if (index === 0) return pieces;
      index--;
      end = (pieces[index] as string).length;
    }
  }
  return piecesUpTo(pieces, { index, end });
}
