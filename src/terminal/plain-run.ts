/**
 * Matches the first character that may not be part of a plain run: a C0 or
 * C1 control other than TAB, LF and CR, DEL, or an ESC that does not start a
 * complete SGR (`m`), EL (`K`) or CHA (`G`) sequence or bracketed paste mode
 * set or reset (`CSI ? 2004 h`/`l`, which bash's readline sends around every
 * prompt). An escape sequence cut at the end of a chunk therefore matches too.
 */
const NOT_PLAIN = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]|\x1b(?!\[[0-9;:]*[mKG]|\[\?2004[hl])/;

const SGR = /\x1b\[([0-9;:]*)m/g;
/** Whether a piece holds an SGR sequence at all (most of bash's hold only paste mode switches). */
const HAS_SGR = /\x1b\[[0-9;:]*m/;

/** Past this many dropped SGR sequences without a reset, the run is fed whole. */
const SGR_LIMIT = 256;

/** Past this much text without a CR LF, there is nowhere safe to cut: the run is fed whole. */
const OPEN_LIMIT = 1 << 16;

/**
 * Whether `text` consists only of what a plain run may hold: printable text,
 * TAB, CR, LF, and complete SGR, EL and CHA sequences and bracketed paste
 * mode switches.
 */
export function isPlainText(text: string): boolean {
  return !NOT_PLAIN.test(text);
}

/**
 * Collapses a long burst of plain output (see {@link isPlainText}) to a tail
 * that leaves a terminal emulator in the same state as the whole burst.
 *
 * Why the tail is enough, given that the emulator's parser is in its ground
 * state and its scroll region is the whole screen when the run starts: the
 * cut is always right after a CR LF, and the tail is fed as CR + the SGR
 * sequences that were dropped (since their last reset) + the last bracketed
 * paste mode switch dropped + the kept text, so the cursor column,
 * pending-wrap flag, attributes and modes at the start of the kept text are
 * the same as after the whole prefix. Plain text moves the
 * cursor only along its row and down, so from then on both versions advance
 * lines at the same points; once the cursor reaches the bottom row (at most
 * `rows - 1` line feeds) every further line feed scrolls in a fresh blank
 * row. With `keepLineFeeds >= 2 * rows + scrollback` line feeds kept, every
 * row of the screen and the scrollback has been scrolled in fresh and
 * written by the kept text alone, identically in both versions.
 */
export class PlainRun {
  readonly #keepLineFeeds: number;
  /**
   * Text since the run started, kept from index `#first` on: the text up to each cut point (right
   * after a CR LF), and before it, as pieces of their own (not copied into one), what came after
   * the cut point before it in earlier appends.
   */
  #pieces: string[] = [];
  #pieceLineFeeds: number[] = [];
  /** Whether each piece ends at a cut point (the kept text may start after it). */
  #cutAfter: boolean[] = [];
  /**
   * The first piece kept: dropping moves it on (the arrays are shortened once most of them is
   * dropped), instead of copying both arrays for each piece appended.
   */
  #first = 0;
  #lineFeeds = 0;
  /** Text after the last CR LF. */
  #open: string[] = [];
  #openLength = 0;
  #openEndsWithCr = false;
  #dropped = false;
  #droppedSgr: string[] = [];
  /** The last bracketed paste mode switch dropped ("" for none). */
  #droppedPasteMode = "";

  /**
   * @param keepLineFeeds - How many line feeds the kept tail must hold at
   * least: `2 * rows + scrollback` of the emulator it is fed to.
   */
  constructor(keepLineFeeds: number) {
    this.#keepLineFeeds = keepLineFeeds;
  }

  /** Whether the run holds any text. */
  get isEmpty(): boolean {
    return this.#pieces.length === this.#first && this.#open.length === 0;
  }

  /** Whether any text was dropped so far. */
  get hasDropped(): boolean {
    return this.#dropped;
  }

  /**
   * Adds plain text (the caller checked {@link isPlainText}). Returns false
   * when the run can no longer be collapsed safely and must be taken now.
   */
  append(text: string): boolean {
    if (text === "") return true;
    let cut = text.lastIndexOf("\r\n");
    cut = cut >= 0 ? cut + 2 : this.#openEndsWithCr && text.startsWith("\n") ? 1 : -1;
    this.#openEndsWithCr = text.endsWith("\r");
    if (cut < 0) {
      this.#open.push(text);
      this.#openLength += text.length;
      return this.#openLength <= OPEN_LIMIT;
    }
    const piece = cut === text.length ? text : text.slice(0, cut);
    const rest = cut === text.length ? "" : text.slice(cut);
    // A text holding enough lines by itself (a long burst appended at once) is cut inside: all
    // before its last lines falls out.
    const start = tailStart(text, cut, this.#keepLineFeeds);
    if (start > 0) {
      for (let index = this.#first; index < this.#pieces.length; index++) this.#noteSgr(this.#pieces[index] as string);
      for (const part of this.#open) this.#noteSgr(part);
      this.#noteSgr(piece.slice(0, start));
      this.#pieces = [];
      this.#pieceLineFeeds = [];
      this.#cutAfter = [];
      this.#first = 0;
      this.#lineFeeds = 0;
      this.#dropped = true;
      this.#addPiece(piece.slice(start), true);
    } else {
      // What came after the last cut point goes in as it is, not copied into one piece with this text.
      for (const part of this.#open) this.#addPiece(part, false);
      this.#addPiece(piece, true);
    }
    this.#open = rest === "" ? [] : [rest];
    this.#openLength = rest.length;
    return this.#trim() && this.#droppedSgr.length <= SGR_LIMIT;
  }

  /** Returns the text to feed in place of everything appended, and empties the run. */
  take(): string {
    const prefix = this.#dropped ? `\r${this.#droppedSgr.join("")}${this.#droppedPasteMode}` : "";
    const kept = this.#first === 0 ? this.#pieces : this.#pieces.slice(this.#first);
    const text = prefix + kept.join("") + this.#open.join("");
    this.#pieces = [];
    this.#pieceLineFeeds = [];
    this.#cutAfter = [];
    this.#first = 0;
    this.#lineFeeds = 0;
    this.#open = [];
    this.#openLength = 0;
    this.#openEndsWithCr = false;
    this.#dropped = false;
    this.#droppedSgr = [];
    this.#droppedPasteMode = "";
    return text;
  }

  #addPiece(piece: string, cutAfter: boolean): void {
    // Counted up to what is kept at most: the sums are then lower bounds, and a drop stays safe.
    const lineFeeds = countLineFeeds(piece, this.#keepLineFeeds);
    this.#pieces.push(piece);
    this.#pieceLineFeeds.push(lineFeeds);
    this.#cutAfter.push(cutAfter);
    this.#lineFeeds += lineFeeds;
  }

  #trim(): boolean {
    const pieces = this.#pieces;
    const first = this.#first;
    let drop = first;
    let lineFeeds = this.#lineFeeds;
    while (drop < pieces.length - 1) {
      const next = lineFeeds - (this.#pieceLineFeeds[drop] ?? 0);
      if (next < this.#keepLineFeeds) break;
      lineFeeds = next;
      drop++;
    }
    // The kept text starts at a cut point.
    while (drop > first && this.#cutAfter[drop - 1] !== true) {
      drop--;
      lineFeeds += this.#pieceLineFeeds[drop] ?? 0;
    }
    if (drop === first) return true;
    for (let index = first; index < drop; index++) {
      this.#noteSgr(pieces[index] as string);
      pieces[index] = ""; // let the dropped text go
    }
    this.#first = drop;
    if (drop >= 64 && drop * 2 >= pieces.length) {
      pieces.splice(0, drop);
      this.#pieceLineFeeds.splice(0, drop);
      this.#cutAfter.splice(0, drop);
      this.#first = 0;
    }
    this.#lineFeeds = lineFeeds;
    this.#dropped = true;
    return this.#droppedSgr.length <= SGR_LIMIT;
  }

  /** Keeps the SGR sequences of a dropped piece that still shape the attributes, and its last paste mode switch. */
  #noteSgr(piece: string): void {
    if (!piece.includes("\x1b")) return;
    // Bracketed paste mode is a flag: the last switch of a dropped piece is all that counts.
    const pasteMode = piece.lastIndexOf("\x1b[?2004");
    if (pasteMode !== -1) this.#droppedPasteMode = piece.slice(pasteMode, pasteMode + 8);
    if (!HAS_SGR.test(piece)) return;
    for (const match of piece.matchAll(SGR)) {
      const first = (match[1] ?? "").split(/[;:]/, 1)[0] ?? "";
      if (Number(first) === 0 && !(match[1] ?? "").startsWith(":")) this.#droppedSgr = [];
      this.#droppedSgr.push(match[0]);
    }
  }
}

/**
 * Whether {@link PlainRun.append} given `text` keeps only a tail of it and drops everything
 * appended before: up to its last CR LF, it holds a cut point with at least `lines` line feeds
 * after it.
 */
export function holdsTail(text: string, lines: number): boolean {
  const cut = text.lastIndexOf("\r\n");
  return cut !== -1 && tailStart(text, cut + 2, lines) > 0;
}

/**
 * Where the shortest tail of `text` up to `end` (where it ends with CR LF) that starts right after a
 * CR LF and holds at least `lines` line feeds starts; -1 when there is none. (An end, not a slice: a
 * character of a slice costs more to read.)
 */
function tailStart(text: string, end: number, lines: number): number {
  let count = 0;
  for (let index = end - 1; index > 0; index--) {
    if (text.charCodeAt(index) !== 10) continue;
    if (count >= lines && text.charCodeAt(index - 1) === 13) return index + 1;
    count++;
  }
  return -1;
}

/** Line feeds in `text`, counted from its end, up to `max`. */
export function countLineFeeds(text: string, max: number): number {
  // One character at a time: a search per line costs more on short lines.
  let count = 0;
  for (let index = text.length - 1; index >= 0 && count < max; index--) if (text.charCodeAt(index) === 10) count++;
  return count;
}
