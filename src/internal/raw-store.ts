import { hasLoneLf } from "../terminal/crlf.js";
import { CappedText } from "./capped-text.js";

/** Raw text that is clean text with CR LF line ends: kept as where that clean text sits in the clean output. */
interface CleanRange {
  readonly start: number;
  /** Grows when the next part of the clean output is mirrored too, and the raw text between is that of the clean text between. */
  end: number;
}

/** A part of the chunk being taken in that is a range of the clean output. */
interface Mirror extends CleanRange {
  readonly rawFrom: number;
  readonly rawTo: number;
  /** The clean text added between the part mirrored before and this one; undefined when not known. */
  readonly gap: string | undefined;
}

/** The raw text of a range: its clean text with CR LF line ends. */
const toRaw = (clean: string): string => clean.replaceAll("\n", "\r\n");

/** Below this many characters, a part of a chunk is not worth a range. */
export const MIN_RANGE_CHARS = 256;
/** Longest clean text between two mirrored parts that is kept to join them into one range. */
const MAX_GAP_CHARS = 4096;

/**
 * The raw text of one frame, capped like {@link CappedText}, without holding
 * twice what the clean output holds: the owner says which parts of a raw
 * chunk became clean text unchanged but for their CR LF line ends
 * ({@link RawStore.mirror}); those parts are kept as ranges of the clean
 * output and built again when the raw text is asked for. Once the raw text
 * is over its cap it is kept as text (head and tail, bounded), as before.
 *
 * The owner hands over `clean()`, the clean output so far, and calls
 * {@link RawStore.materialize} before the clean text the ranges point into
 * goes away (discarded, or cut because it is over its own cap).
 */
export class RawStore {
  readonly #maxBytes: number;
  readonly #clean: () => string;
  /** Text, or ranges of the clean output, in order; undefined once capped. */
  #segments: Array<string | CleanRange> | undefined = [];
  #bytes = 0;
  #capped: CappedText | undefined;
  #rangesAllowed = true;
  #hasRanges = false;
  /** The chunk being taken in, and the parts of it that are ranges. */
  #open: string | undefined;
  #mirrors: Mirror[] = [];
  /**
   * The raw text after the last segment, not in `#segments` yet: it may be what lies between that
   * segment, a range, and the next mirrored part, which then join into one range (see `#close`).
   */
  #pendingRaw = "";
  /** The clean text added since the last mirrored part ({@link RawStore.cleanAdded}); undefined once too long. */
  #gap: string | undefined = "";

  /**
   * @param clean - The clean output the ranges point into: since the start
   * of the frame, or since the owner last discarded it.
   */
  constructor(maxBytes: number, clean: () => string) {
    this.#maxBytes = maxBytes;
    this.#clean = clean;
  }

  /** Adds a raw chunk (the one before it is complete). */
  append(text: string): void {
    this.#close();
    if (text === "") return;
    if (this.#capped !== undefined) {
      this.#capped.append(text);
      return;
    }
    const bytes = Buffer.byteLength(text);
    if (this.#bytes + bytes > this.#maxBytes) {
      this.#toCapped(text);
      return;
    }
    this.#bytes += bytes;
    this.#open = text;
  }

  /**
   * Says that the owner added `text` to the clean output, not as a mirrored
   * part: between two mirrored parts, it lets their ranges join into one
   * when the raw text between them is this text with CR LF line ends.
   */
  cleanAdded(text: string): void {
    if (this.#gap === undefined) return;
    this.#gap = this.#gap.length + text.length > MAX_GAP_CHARS ? undefined : this.#gap + text;
  }

  /**
   * Says that `raw.slice(rawFrom, rawTo)`, a part of the chunk being taken
   * in, became the clean output's characters `cleanStart` to `cleanEnd`,
   * unchanged but for CR LF as LF. Ignored when `raw` is not that chunk, or
   * the part holds what a range could not give back (an LF without a CR
   * before it: not looked for when `crlfOnly` says the caller knows there is none).
   */
  mirror(raw: string, rawFrom: number, rawTo: number, cleanStart: number, cleanEnd: number, crlfOnly = false): void {
    const gap = this.#gap;
    // What is not mirrored is clean text not known here: no range joins across it.
    this.#gap = undefined;
    if (raw !== this.#open || !this.#rangesAllowed || rawTo - rawFrom < MIN_RANGE_CHARS) return;
    const last = this.#mirrors[this.#mirrors.length - 1];
    if (last !== undefined && last.rawTo > rawFrom) return;
    if (!crlfOnly && hasLoneLf(raw.slice(rawFrom, rawTo))) return;
    this.#mirrors.push({ rawFrom, rawTo, start: cleanStart, end: cleanEnd, gap });
    this.#gap = "";
  }

  /**
   * Turns the ranges back into text (the clean output must still be what
   * they point into), and keeps every later chunk as text when
   * `rangesFromNowOn` is false.
   */
  materialize(rangesFromNowOn: boolean): void {
    if (this.#mirrors.length > 0) this.#mirrors = [];
    this.#gap = "";
    this.#rangesAllowed &&= rangesFromNowOn;
    this.#flushPending();
    if (!this.#hasRanges || this.#segments === undefined) return;
    const clean = this.#clean();
    this.#segments = this.#segments.map((segment) =>
      typeof segment === "string" ? segment : toRaw(clean.slice(segment.start, segment.end)),
    );
    this.#hasRanges = false;
  }

  /**
   * The raw text so far, or, when part of it is kept as ranges, a function
   * that builds it (and may be called later: what it needs is kept now),
   * with the bytes left out once over the cap. `clean` is the clean output
   * so far when the caller has it at hand, as the pieces whose
   * concatenation it is (a long one is not copied whole to be sliced).
   */
  finish(
    clean: readonly string[] | undefined,
    marker: (omittedBytes: number) => string,
  ): { readonly text: string | (() => string); readonly omittedBytes: number } {
    this.#close();
    if (this.#capped !== undefined) {
      const capped = this.#capped.finish(marker);
      return { text: capped.text, omittedBytes: capped.omittedBytes };
    }
    this.#flushPending();
    const segments = this.#segments as Array<string | CleanRange>;
    if (!this.#hasRanges) {
      const text = segments.length === 1 ? (segments[0] as string) : segments.join("");
      if (segments.length > 1) this.#segments = [text];
      return { text, omittedBytes: 0 };
    }
    const kept = [...segments];
    const pieces = clean ?? [this.#clean()];
    return {
      text: () => {
        const slice = slicer(pieces);
        return kept.map((segment) => (typeof segment === "string" ? segment : toRaw(slice(segment.start, segment.end)))).join("");
      },
      omittedBytes: 0,
    };
  }

  /** The chunk being taken in is complete: its parts go in as text and ranges. */
  #close(): void {
    const text = this.#open;
    if (text === undefined) return;
    this.#open = undefined;
    const segments = this.#segments;
    if (segments === undefined) return;
    if (this.#mirrors.length === 0 || !this.#rangesAllowed) {
      if (this.#mirrors.length > 0) this.#mirrors = [];
      if (
        this.#rangesAllowed &&
        segments.length > 0 &&
        typeof segments[segments.length - 1] === "object" &&
        this.#pendingRaw.length + text.length <= MAX_GAP_CHARS
      ) {
        // A short chunk after a range: it may lie between that range and the next mirrored part.
        this.#pendingRaw += text;
        return;
      }
      this.#flushPending();
      segments.push(text);
      return;
    }
    let at = 0;
    for (const mirror of this.#mirrors) {
      const between = this.#pendingRaw + text.slice(at, mirror.rawFrom);
      this.#pendingRaw = "";
      const last = segments[segments.length - 1];
      if (
        typeof last === "object" &&
        mirror.gap !== undefined &&
        last.end + mirror.gap.length === mirror.start &&
        toRaw(mirror.gap) === between
      ) {
        // The raw text since the last range is that of the clean text since: one range for both.
        last.end = mirror.end;
      } else {
        if (between !== "") segments.push(detach(between));
        segments.push({ start: mirror.start, end: mirror.end });
      }
      at = mirror.rawTo;
    }
    this.#pendingRaw = text.slice(at);
    this.#mirrors = [];
    this.#hasRanges = true;
  }

  /** The raw text held back for a range to join goes in as text. */
  #flushPending(): void {
    if (this.#pendingRaw === "") return;
    this.#segments?.push(detach(this.#pendingRaw));
    this.#pendingRaw = "";
  }

  /** Over the cap: everything so far as text, in order, into a {@link CappedText} (the same one appending all of it would give). */
  #toCapped(text: string): void {
    this.materialize(false);
    const capped = new CappedText(this.#maxBytes);
    for (const segment of this.#segments ?? []) capped.append(segment as string);
    capped.append(text);
    this.#capped = capped;
    this.#segments = undefined;
  }
}

/**
 * Slices the text that `pieces` concatenated make, without concatenating
 * them; ranges are asked for in order (from one range to the next, the
 * piece is looked for from where the last one ended).
 */
function slicer(pieces: readonly string[]): (start: number, end: number) => string {
  let index = 0;
  let offset = 0; // where piece `index` starts
  return (start, end) => {
    if (start < offset) {
      index = 0;
      offset = 0;
    }
    while (index < pieces.length - 1 && offset + (pieces[index] as string).length <= start) {
      offset += (pieces[index] as string).length;
      index++;
    }
    const piece = pieces[index] ?? "";
    if (end - offset <= piece.length) return piece.slice(start - offset, end - offset);
    let text = piece.slice(start - offset);
    let at = offset + piece.length;
    for (let next = index + 1; next < pieces.length && at < end; next++) {
      const following = pieces[next] as string;
      text += following.slice(0, end - at);
      at += following.length;
    }
    return text;
  };
}

/** A copy of `text` that does not keep the string it was sliced from alive. */
function detach(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, "utf8").toString("utf8");
}
