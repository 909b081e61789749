import { scanPlainChunk } from "./crlf.js";

/** Receives what {@link LineAssembler} makes of the terminal's text. */
export interface LineSink {
  /** A complete clean line (without its newline). */
  line(text: string): void;
  /** A piece of a line too long to hold: output, but no newline follows. */
  segment(text: string): void;
  /** The body of an OSC sequence that starts with the mark prefix. */
  mark(body: string): void;
  /**
   * Complete lines of plain text at once: `text.slice(from, to)`, which
   * holds no control character but TAB, CR only before LF, and ends with a
   * line end. Returns how far it took them in (`from` for none): the lines
   * after that are passed to `line()` one by one, as without this method.
   */
  block?(text: string, from: number, to: number): number;
}

/** Bit of what {@link LineAssembler.push} returns: the text was plain (see `lastPushPlain`). */
export const PUSHED_PLAIN = 1;
/** Bit of what {@link LineAssembler.push} returns: the text was marks (if any) and line pieces (see `lastPushMarkedLines`). */
export const PUSHED_MARKED_LINES = 2;

/** Longest unfinished line kept whole; longer ones are passed on in segments so memory stays bounded. */
const MAX_LINE_CHARS = 64 * 1024;
/** An escape string (OSC, DCS…) longer than this is taken as garbage, not swallowed output. */
const MAX_ESCAPE_CHARS = 8 * 1024;

/**
 * Private mode sets and resets (`ESC [ ? … h` / `l`): they change nothing on a line, and bash wraps
 * every prompt in two of them (bracketed paste, `\x1b[?2004h` … `\x1b[?2004l\r`).
 */
const PRIVATE_MODES = /\x1b\[\?[\d;]*[hl]/g;
const SPECIAL = /[\x00-\x08\x0a-\x1f\x7f]/g;

/**
 * Turns terminal text into clean lines, the way a person reads the screen:
 * escape sequences removed, carriage-return redraws and backspaces
 * collapsed (progress bars keep their final state), `\r\n` → `\n`. Keeps the
 * unfinished last line (and an escape sequence cut between chunks) until the
 * rest arrives.
 */
export class LineAssembler {
  private text = "";
  private col = 0;
  private pending = "";
  /** The last plain chunk ended with a CR, not yet applied (see `push`). */
  private heldCr = false;
  private lastPlain = false;
  /** The text last pushed was marks and line pieces only (see {@link LineAssembler.lastPushMarkedLines}). */
  private lastMarkedLines = false;
  private readonly markPrefix: string | undefined;
  /** Where a mark starts: ESC ] and the prefix. */
  private readonly markStart: string | undefined;

  constructor(markPrefix?: string) {
    this.markPrefix = markPrefix;
    this.markStart = markPrefix === undefined ? undefined : `\x1b]${markPrefix}`;
  }

  /** The unfinished last line, cleaned. */
  get partialLine(): string {
    return this.text;
  }

  /** Forgets the unfinished last line. */
  discardPartial(): void {
    this.text = "";
    this.col = 0;
  }

  /** Hands the unfinished last line to `sink.segment` and forgets it. */
  flushPartial(sink: LineSink): void {
    if (this.text !== "") sink.segment(this.text);
    this.text = "";
    this.col = 0;
  }

  /**
   * Feeds decoded terminal text. Returns what {@link LineAssembler.lastPushPlain} (bit
   * {@link PUSHED_PLAIN}) and {@link LineAssembler.lastPushMarkedLines} (bit {@link PUSHED_MARKED_LINES})
   * say after it, so that a caller need not ask (two calls a chunk).
   */
  push(chunk: string, sink: LineSink): number {
    this.lastMarkedLines = false;
    let text = chunk;
    let afterCr = false;
    if (this.heldCr) {
      this.heldCr = false;
      afterCr = chunk.startsWith("\n");
      // The CR before an LF changes nothing, nor at the start of a line; before anything else it goes back in front.
      if (this.text !== "" && !afterCr) text = `\r${chunk}`;
    }
    if (this.pending !== "") {
      text = this.pending + text;
      this.pending = "";
    }
    const markStart = this.markStart;
    const firstMark = markStart === undefined ? -1 : text.indexOf(markStart);
    if (firstMark !== -1) {
      const pushed = this.pushAroundMarks(text, firstMark, afterCr, sink);
      if (pushed !== -1) return pushed;
    } else if (!afterCr) {
      // One line piece (bash's echo of a cell read on its own: `echo hi\r\n\x1b[?2004l\r`): the short way.
      const pushed = this.pushLinePiece(text, 0, text.length, sink);
      if (pushed !== 0) {
        this.lastPlain = pushed === PUSHED_PLAIN;
        this.lastMarkedLines = pushed === PUSHED_MARKED_LINES;
        return pushed;
      }
    }
    this.pushText(text, afterCr, sink);
    return this.lastPlain ? PUSHED_PLAIN : 0;
  }

  /**
   * A chunk that holds whole marks (a shell's prompt and its command's echo and output, with
   * shell integration): the text between them goes through `push` as chunks of its own, the marks
   * to the sink in their place, as the per-character path would (cutting a chunk anywhere gives the
   * same lines). Returns -1, having done nothing, when a piece before a mark would end inside an
   * escape sequence (the mark would end it there): the chunk takes the usual path then; otherwise
   * what `push` returns.
   */
  private pushAroundMarks(text: string, firstMark: number, afterCr: boolean, sink: LineSink): number {
    const markStart = this.markStart as string;
    // Each piece and mark goes out as soon as the mark is known whole (what comes after it decides
    // nothing about it): no list of cuts is made.
    let marks = 0;
    let from = 0;
    let allLines = true;
    for (let at = firstMark; at !== -1; at = text.indexOf(markStart, from)) {
      const bodyStart = at + 2;
      const bel = text.indexOf("\x07", bodyStart);
      const esc = text.indexOf("\x1b", bodyStart);
      let end: number;
      if (bel !== -1 && (esc === -1 || bel < esc)) end = bel;
      else if (esc !== -1 && text.charCodeAt(esc + 1) === 0x5c /* ST */) end = esc;
      else break; // cut off, or ended by another sequence: the usual path knows what that means
      if (end - bodyStart >= MAX_ESCAPE_CHARS) break;
      // Plain lines (most pieces) end outside any escape sequence: nothing more to look at.
      if (at > from && ((marks === 0 && afterCr) || this.pushLinePiece(text, from, at, sink) === 0)) {
        if (!endsOutsideEscape(text, from, at)) break;
        allLines = false;
        if (marks === 0) this.pushText(text.slice(from, at), afterCr, sink);
        else this.push(text.slice(from, at), sink);
      }
      marks++;
      sink.mark(text.slice(bodyStart, end));
      from = end === bel ? end + 1 : end + 2;
    }
    if (marks === 0) return -1;
    if (from < text.length && this.pushLinePiece(text, from, text.length, sink) === 0) {
      allLines = false;
      this.push(text.slice(from), sink);
    }
    // Not plain for a screen: it holds escape sequences.
    this.lastPlain = false;
    this.lastMarkedLines = allLines;
    return allLines ? PUSHED_MARKED_LINES : 0;
  }

  /**
   * A piece of a chunk between marks, `text` from `from` to `to` (bash's echo, its command's output,
   * its prompt), taken the short way when it is plain text with at most one line end and a private
   * mode at its end (see {@link LINE_PIECE}; more lines take a screen's plain path, `LineSink.block`,
   * which reads what `scanPlainChunk` saw), and nothing is held from before it: the line it ends,
   * then the start of the next, as the usual path (`scanPlainChunk`, `lineOnly`, then `pushPlain`)
   * makes them (its private mode shows nothing, and a CR after it is held, unless it starts a line:
   * it moves nothing). Looked at in place, no copy of the piece made. Returns what `push` would
   * for the piece alone: {@link PUSHED_PLAIN} without a private mode, {@link PUSHED_MARKED_LINES}
   * with one; 0, having done nothing, for any other piece.
   */
  private pushLinePiece(text: string, from: number, to: number, sink: LineSink): number {
    // (Nothing is pending here: `push` took it in front of the chunk.)
    const partial = this.text;
    if (this.heldCr || this.col !== partial.length) return 0;
    // The longest piece of that form from `from` (there is one way only to read it) must reach `to`.
    LINE_PIECE.lastIndex = from;
    if (!LINE_PIECE.test(text) || LINE_PIECE.lastIndex !== to) return 0;
    // Its only ESC, if any, starts its private mode (the next one is the mark's, at `to`, or none).
    const found = text.indexOf("\x1b", from);
    const esc = found === -1 || found >= to ? -1 : found;
    const end = esc === -1 ? to : esc;
    const heldCr = esc !== -1 && text.charCodeAt(to - 1) === 13 && (esc === from ? partial !== "" : text.charCodeAt(esc - 1) !== 10);
    let start = from;
    const lf = text.indexOf("\n", from);
    if (lf !== -1 && lf < end) {
      // Every LF of such a piece comes after a CR.
      const line = text.slice(from, lf - 1);
      if (partial === "") sink.line(line);
      else {
        sink.line(partial + line);
        this.text = "";
        this.col = 0;
      }
      start = lf + 1;
    }
    if (start < end) this.append(text.slice(start, end), sink);
    this.heldCr = heldCr;
    return esc === -1 ? PUSHED_PLAIN : PUSHED_MARKED_LINES;
  }

  private pushText(text: string, afterCr: boolean, sink: LineSink): void {
    // A CR LF cut between chunks (one chunk in twenty of a big output): the CR waits for the next
    // chunk, so this one stays on the fast path. Alone, it would only move the cursor to column 0,
    // which the next chunk's text shows as before. Anything but plain text, tab and "\r\n" sends a
    // chunk down the slow path (C1 controls too, though they show nothing here: a screen must look at
    // them, see `lastPushPlain`); a CR at the very end does not: `push` holds it for the next chunk.
    const aligned = this.col === this.text.length;
    this.lastPlain = aligned && scanPlainChunk(text, afterCr);
    if (!this.lastPlain && aligned) {
      // Not plain for a screen, but maybe for lines: a shell's prompt and the echo of a command.
      const lineText = lineOnly(text, this.text === "");
      if (lineText !== undefined) {
        this.pushPlainText(lineText, sink);
        return;
      }
    }
    if (this.lastPlain) this.pushPlainText(text, sink);
    else this.pushControl(text, sink);
  }

  private pushPlainText(text: string, sink: LineSink): void {
    const heldCr = text.endsWith("\r");
    this.pushPlain(text, heldCr ? text.length - 1 : text.length, sink);
    this.heldCr = heldCr;
  }

  /**
   * Whether the text last pushed was whole marks (if any) and, around them, plain lines with at
   * most a private mode set/reset at the end of each piece (see {@link LINE_PIECE}), not plain
   * text: it holds no escape sequence but those (what bash prints for a cell with shell integration).
   */
  get lastPushMarkedLines(): boolean {
    return this.lastMarkedLines;
  }

  /**
   * Whether the text last pushed was plain: no escape sequence, no control
   * character but TAB and line ends, CR only before LF or at the very end
   * (what a screen can fast-forward without looking at it again).
   */
  get lastPushPlain(): boolean {
    return this.lastPlain;
  }

  private pushPlain(text: string, end: number, sink: LineSink): void {
    let start = 0;
    let newline = text.indexOf("\n");
    // The first line finishes the unfinished one; whole lines after it may go at once. A text with
    // no line end (a short read in a long output) takes the same path, to its last line: a branch
    // of its own, first taken once this is optimized, would throw the optimized code away.
    let blockFrom = -1;
    let blockTo = -1;
    if (sink.block !== undefined) {
      const last = text.lastIndexOf("\n");
      if (last > newline) {
        blockFrom = newline + 1;
        blockTo = last + 1;
      }
    }
    while (newline !== -1) {
      const lineEnd = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      const piece = text.slice(start, lineEnd);
      if (this.text === "") {
        sink.line(piece);
      } else {
        sink.line(this.text + piece);
        this.text = "";
        this.col = 0;
      }
      start = newline + 1;
      if (start === blockFrom) {
        start = (sink.block as NonNullable<LineSink["block"]>)(text, blockFrom, blockTo);
        blockFrom = -1;
      }
      newline = text.indexOf("\n", start);
    }
    if (start < end) this.append(text.slice(start, end), sink);
  }

  private append(piece: string, sink: LineSink): void {
    const text = this.text + piece;
    this.text = text;
    this.col = text.length;
    if (text.length > MAX_LINE_CHARS) {
      sink.segment(text);
      this.discardPartial();
    }
  }

  private put(piece: string, sink: LineSink): void {
    const text = this.text;
    const col = this.col;
    if (col === text.length) {
      this.append(piece, sink);
      return;
    }
    const before = col > text.length ? text + " ".repeat(col - text.length) : text.slice(0, col);
    this.text = before + piece + text.slice(col + piece.length);
    this.col = col + piece.length;
  }

  private endLine(sink: LineSink): void {
    sink.line(this.text);
    this.text = "";
    this.col = 0;
  }

  private pushControl(text: string, sink: LineSink): void {
    const length = text.length;
    let index = 0;
    while (index < length) {
      // test(), not exec(): the special character is one long, so lastIndex says where it is, and no
      // match array is made for each one (a chunk of bash's prompt holds a dozen).
      SPECIAL.lastIndex = index;
      const next = SPECIAL.test(text) ? SPECIAL.lastIndex - 1 : length;
      if (next > index) this.put(text.slice(index, next), sink);
      if (next >= length) return;
      const code = text.charCodeAt(next);
      index = next + 1;
      if (code === 0x0a) this.endLine(sink);
      else if (code === 0x0d) this.col = 0;
      else if (code === 0x08) this.col = Math.max(0, this.col - 1);
      else if (code === 0x1b) {
        const end = this.escape(text, next, sink);
        if (end === -1) {
          this.pending = text.slice(next);
          return;
        }
        index = end;
      }
      // Every other control character (BEL, NUL, SI/SO…) shows nothing.
    }
  }

  /** Handles the escape sequence at `start`; returns where it ends, or -1 when it is cut off. */
  private escape(text: string, start: number, sink: LineSink): number {
    const kind = text.charCodeAt(start + 1);
    if (Number.isNaN(kind)) return -1;
    if (kind === 0x1b) return start + 1; // a lone ESC: the next one starts the real sequence
    if (kind === 0x5b /* [ */) return this.csi(text, start + 2);
    if (kind === 0x5d /* ] */ || kind === 0x50 /* P */ || kind === 0x5f /* _ */ || kind === 0x5e /* ^ */ || kind === 0x58 /* X */) {
      return this.escapeString(text, start, kind === 0x5d, sink);
    }
    if (kind >= 0x20 && kind <= 0x2f) {
      // ESC + intermediate + final: character set designations and the like.
      return start + 2 < text.length ? start + 3 : -1;
    }
    return start + 2;
  }

  private escapeString(text: string, start: number, isOsc: boolean, sink: LineSink): number {
    const bodyStart = start + 2;
    const limit = Math.min(text.length, bodyStart + MAX_ESCAPE_CHARS);
    // Only BEL and ESC end (or abort) the string: found by the engine's search, not per character
    // (BEL is looked for before the next ESC only, so many strings in one chunk stay linear).
    const esc = text.indexOf("\x1b", bodyStart);
    const searchEnd = esc === -1 || esc > limit ? limit : esc;
    const bel = text.slice(bodyStart, searchEnd).indexOf("\x07");
    const index = bel !== -1 ? bodyStart + bel : esc !== -1 && esc < limit ? esc : -1;
    if (index !== -1) {
      const code = text.charCodeAt(index);
      if (code === 0x1b && index + 1 < text.length && text.charCodeAt(index + 1) !== 0x5c) {
        // ESC that is not ST aborts the string and starts a sequence of its own. A terminal would
        // swallow the body; it was never a complete sequence, so it is shown rather than lost.
        this.pushControl(text.slice(bodyStart, index), sink);
        return index;
      }
      if (code === 0x1b && index + 1 >= text.length) return -1;
      if (isOsc && this.markPrefix !== undefined) {
        const body = text.slice(bodyStart, index);
        if (body.startsWith(this.markPrefix)) sink.mark(body);
      }
      return code === 0x07 ? index + 1 : index + 2;
    }
    if (limit === text.length && limit - bodyStart < MAX_ESCAPE_CHARS) return -1;
    // Never terminated within reason: show what follows instead of swallowing it.
    return bodyStart;
  }

  private csi(text: string, paramsStart: number): number {
    let index = paramsStart;
    const length = text.length;
    while (index < length) {
      const code = text.charCodeAt(index);
      if (code >= 0x40 && code <= 0x7e) {
        this.applyCsi(text.slice(paramsStart, index), code);
        return index + 1;
      }
      if (code === 0x1b) return index; // interrupted by a new sequence
      if (code < 0x20 || code > 0x3f) return index; // malformed: drop what we read
      index++;
      if (index - paramsStart > MAX_ESCAPE_CHARS) return index;
    }
    return -1;
  }

  private applyCsi(params: string, final: number): void {
    if (final !== 0x4b && final !== 0x43 && final !== 0x44 && final !== 0x47 && final !== 0x50 && final !== 0x40 && final !== 0x58) {
      return; // colours, modes, vertical moves: nothing a line reader keeps
    }
    if (params.charCodeAt(0) === 0x3f /* ? private */) return;
    const value = Number.parseInt(params, 10);
    const count = Number.isNaN(value) || value < 1 ? 1 : value;
    const text = this.text;
    const col = this.col;
    switch (final) {
      case 0x4b: // K: erase in line
        if (Number.isNaN(value) || value === 0) this.text = text.slice(0, col);
        else if (value === 1) this.text = " ".repeat(Math.min(col + 1, text.length)) + text.slice(col + 1);
        else this.text = "";
        break;
      case 0x43: // C: cursor forward
        this.col = col + count;
        break;
      case 0x44: // D: cursor back
        this.col = Math.max(0, col - count);
        break;
      case 0x47: // G: cursor to column
        this.col = count - 1;
        break;
      case 0x50: // P: delete characters
        this.text = text.slice(0, col) + text.slice(col + count);
        break;
      case 0x40: // @: insert blanks
        this.text = text.slice(0, col) + " ".repeat(count) + text.slice(col);
        break;
      case 0x58: // X: erase characters
        this.text = text.slice(0, col) + " ".repeat(Math.min(count, Math.max(0, text.length - col))) + text.slice(col + count);
        break;
    }
  }
}

/** A whole control sequence: ESC [, parameter and intermediate bytes, a final byte (sticky: tested where it is put). */
const WHOLE_CSI = /\x1b\[[\x20-\x3f]*[\x40-\x7e]/y;

/**
 * Whether `text` from `from` to `to` leaves no escape sequence open at its end: its last ESC (if
 * any) starts a control sequence (`ESC [`) that ends before `to`.
 */
function endsOutsideEscape(text: string, from: number, to: number): boolean {
  if (to <= from) return true;
  const esc = text.lastIndexOf("\x1b", to - 1);
  if (esc < from) return true;
  // `to` is where a mark starts (an ESC): a control sequence that matches ends before it.
  WHOLE_CSI.lastIndex = esc;
  return WHOLE_CSI.test(text);
}

/**
 * At most one complete line (CR LF), then the start of an unfinished one, of plain text (TAB
 * allowed), and at most one private mode set/reset at the very end, maybe followed by a CR: what
 * bash prints between its marks (`echo hi\r\n\x1b[?2004l\r`, `hi\r\n\x1b[?2004h`, `$ `). Sticky:
 * tried where it is put, it reads the longest such text there, in one way only (no part of it can
 * match where another does), so a piece is of this form when the match ends where the piece does
 * (a piece of more lines stops it at its second line end: no second search for one).
 */
const LINE_PIECE = /[^\x00-\x08\x0a-\x1f\x7f-\x9f]*(?:\r\n[^\x00-\x08\x0a-\x1f\x7f-\x9f]*)?(?:\x1b\[\?[\d;]*[hl]\r?)?/y;

/** A private mode set/reset where it is put (sticky), for {@link withoutLastMode}. */
const PRIVATE_MODE_HERE = /\x1b\[\?[\d;]*[hl]/y;

/**
 * `text` without its only escape sequence, a private mode set/reset that ends it (or is followed by
 * a CR only): what bash's prompt and its command's echo hold (`…\r\n\x1b[?2004h`, `…\x1b[?2004l\r`).
 * The same as removing every {@link PRIVATE_MODES} match, without a regular-expression replace;
 * `undefined` for any other text.
 */
function withoutLastMode(text: string): string | undefined {
  const at = text.lastIndexOf("\x1b");
  if (at === -1 || (at > 0 && text.lastIndexOf("\x1b", at - 1) !== -1)) return undefined;
  PRIVATE_MODE_HERE.lastIndex = at;
  if (!PRIVATE_MODE_HERE.test(text)) return undefined;
  const end = PRIVATE_MODE_HERE.lastIndex;
  if (end === text.length) return text.slice(0, at);
  if (end === text.length - 1 && text.charCodeAt(end) === 0x0d) return `${text.slice(0, at)}\r`;
  return undefined;
}

/**
 * What `text` holds for lines, as plain text (see `scanPlainChunk`), when all that keeps it off the
 * plain path are private mode sets/resets and carriage returns at the start of a line (bash's prompt
 * and its command's echo: `\x1b[?2004l\r`); `undefined` otherwise. `atLineStart`: the unfinished
 * line is empty, so a CR the text starts with moves nothing.
 */
function lineOnly(text: string, atLineStart: boolean): string | undefined {
  if (!text.includes("\x1b[?") && !text.includes("\n\r") && !(atLineStart && text.startsWith("\r"))) return undefined;
  // An OSC string (a shell integration mark, a title) is never plain: no need to look further.
  if (text.includes("\x1b]")) return undefined;
  let plain = withoutLastMode(text) ?? text.replace(PRIVATE_MODES, "");
  // After a newline (or on an empty line) a CR moves nothing; before a newline it is a line end.
  if (plain.includes("\n\r")) plain = plain.replaceAll("\n\r", "\n");
  if (atLineStart) while (plain.startsWith("\r") && !plain.startsWith("\r\n")) plain = plain.slice(1);
  return scanPlainChunk(plain) ? plain : undefined;
}
