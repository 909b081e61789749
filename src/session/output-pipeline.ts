import type { CellControl } from "../cell.js";
import type { DetectorInput, FeedResult, FrameDetector, FrameEnd, Verdict } from "../detect/types.js";
import { toVerdict } from "../detect/verdict.js";
import type { FrameCollector } from "../frame.js";
import { BoundedQueue } from "../internal/bounded-queue.js";
import { NOTHING, own } from "../internal/empty-set.js";
import { afterLastQuery, QueryAnswers, TERMINAL_QUERY } from "../pty/query-answers.js";
import { crlfToLf, isCrlfOnly } from "../terminal/crlf.js";
import { EchoFilter } from "../terminal/echo-filter.js";
import { LineAssembler, PUSHED_MARKED_LINES, PUSHED_PLAIN, type LineSink } from "../terminal/line-assembler.js";
import { PromptEcho } from "../terminal/prompt-echo.js";
import { Screen } from "../terminal/screen.js";
import { ScreenBacklog } from "../terminal/screen-backlog.js";
import { Transcript } from "../terminal/transcript.js";

/**
 * Text held back from the emulator before it is fed in one go (long bursts are fast-forwarded), or,
 * before there is one, before the backlog is collapsed.
 */
const SCREEN_BATCH_CHARS = 1 << 16;
/** Bytes one `output()` consumer may fall behind before output is dropped (and said so). */
const STREAM_BUFFER_BYTES = 8 << 20;

/** What the output pipeline asks of the session it serves (see {@link OutputPipeline}). */
export interface OutputPipelineHost {
  /** The frame output goes to now: the active cell's, the one before the first prompt, or none (between cells). */
  frame(): FrameCollector | undefined;
  /** The live consumers of the cell whose frame that is; `undefined` while no cell holds the lock. */
  cellControl(): CellControl | undefined;
  /** The detector said the frame ended (the program is ready for the next cell). */
  endFrame(end: FrameEnd): void;
  /** The detector threw, or its Promise rejected. */
  detectorFailed(error: unknown): void;
  /** Terminal text as it arrived, before anything else sees it (the `data` event, recordings). */
  raw(text: string): void;
  /** Writes a terminal's answer to one of the program's queries (cursor position, device attributes). */
  answer(text: string): void;
  /** Whether the program put the terminal in raw mode (it waits for a query's answer then). */
  isRaw(): Promise<boolean>;
}

/**
 * A detector told where each chunk of output starts and ends, and fed without event objects (the
 * built-in shell integration's; not part of {@link FrameDetector}): when the chunk arrived (the time
 * a detector would read for itself, at some 1.7k instructions a clock read), before it is fed; the
 * three parts of its `feed` (six feeds a cell: no event object made, no shape tested, for each);
 * and that the chunk was taken in whole.
 */
interface ChunkFed {
  startOfChunk(at: number): void;
  feedRaw(): Verdict | undefined;
  feedMark(mark: string): Verdict | undefined;
  feedLine(line: string, partial: boolean): Verdict | undefined;
  endOfChunk(): void;
}

/** A watcher of clean lines: `line` is a complete line, or `undefined` with the new unfinished `partial` line. */
export type LineWatcher = (line: string | undefined, partial: string) => void;

/**
 * Turns what a program prints into what a session reports: terminal text in,
 * then clean lines (escape sequences, redraws and the cell's echo removed),
 * the detector fed every chunk, line and mark and its verdicts applied to the
 * current frame, the clean transcript (`history()`), the `output()` streams,
 * and the terminal emulator behind `screen()` brought up to date lazily.
 *
 * It knows nothing of locks or timeouts: the frame to fill and the end of a
 * frame are its host's (the session's cell lifecycle).
 *
 * @internal
 */
export class OutputPipeline {
  private readonly host: OutputPipelineHost;
  private readonly detector: FrameDetector;
  private readonly assembler: LineAssembler;
  private readonly transcript = new Transcript();
  /** Commands typed at the prompt outside cells, read from their echo for the transcript. */
  private readonly typed = new PromptEcho();
  private readonly sink: LineSink;
  private readonly genericEcho: boolean;
  /** The detector's marks (invisible OSC strings), left out of what the emulator parses: see `push`. */
  private readonly markStart: string | undefined;
  /** Made the first time marks are taken out (most sessions never make a screen). */
  private marks: RegExp | undefined;
  private emulator: Screen | undefined;
  /** Answers to the program's terminal queries, made with the screen. */
  private queryAnswers: QueryAnswers | undefined;
  private size: { cols: number; rows: number };
  /** Output the emulator has not parsed yet (all of it, until one is made). */
  private readonly backlog = new ScreenBacklog();
  private echo: EchoFilter | undefined;
  /** With a mark-based detector: the cell's output has not started yet (what comes is its echo). */
  private liveGate = false;
  private lastPartial = "";
  /** Outside cells, with a mark-based detector: true between an output-end and the next output-start (prompt and echo). */
  private idleNoise = false;
  private atLineStart = true;
  private ended = false;
  private outputAt = 0;
  /** While a chunk is taken in (from `push` to the end of `endChunk`): when it arrived; -1 otherwise. */
  private chunkAt = -1;
  // The shared empty set until something is added (see `own`): most sessions add to none of them.
  private rawStreams: Set<BoundedQueue<string>> = NOTHING;
  private cleanStreams: Set<BoundedQueue<string>> = NOTHING;
  private lineWatchers: Set<LineWatcher> = NOTHING;
  /** The detector, when it is told about chunks and fed in parts (see {@link ChunkFed}). */
  private readonly chunkFed: ChunkFed | undefined;
  /**
   * Whether a chunk of the detector's marks and plain lines only holds no terminal query: true when
   * its mark prefix cannot start one (`ESC ] digits ?`), as a prefix with a character other than
   * digits and `;` before any `?` cannot (shell integration's: its secret is base64url).
   */
  private readonly markedLinesAskNothing: boolean;
  /**
   * While a chunk is taken in: the host's frame, read once (a frame is asked for some seven times a
   * chunk). Anything that may change it (a frame's end, a cell started or released) stops this for
   * the rest of the chunk, and the host is asked again.
   */
  private chunkFrame: FrameCollector | undefined;
  private chunkFrameKnown = false;

  /**
   * @param detector - fed every chunk, line and mark; its `markPrefix`, `removesEcho` and `linesNeeded` shape the pipeline.
   * @param size - the terminal's size, for the emulator.
   */
  constructor(detector: FrameDetector, size: { cols: number; rows: number }, host: OutputPipelineHost) {
    this.host = host;
    this.detector = detector;
    this.size = { ...size };
    this.assembler = new LineAssembler(detector.markPrefix);
    this.genericEcho = detector.removesEcho !== true;
    const fed = detector as FrameDetector & Partial<ChunkFed>;
    this.chunkFed =
      typeof fed.startOfChunk === "function" &&
      typeof fed.feedRaw === "function" &&
      typeof fed.feedMark === "function" &&
      typeof fed.feedLine === "function" &&
      typeof fed.endOfChunk === "function"
        ? (fed as ChunkFed)
        : undefined;
    if (detector.markPrefix !== undefined) {
      this.markStart = `\x1b]${detector.markPrefix}`;
    }
    this.markedLinesAskNothing = detector.markPrefix !== undefined && /^[\d;]*[^\d;?]/.test(detector.markPrefix);
    this.sink = {
      // A line and a mark go straight to what takes them (a few a chunk: one call each, not two).
      line: this.onLine,
      segment: (text) => this.collect(text),
      mark: this.onMark,
      block: (text, from, to) => this.onBlock(text, from, to),
    };
  }

  /** When the program last printed (`performance.now()`), 0 before it did. */
  get lastOutputAt(): number {
    return this.outputAt;
  }

  /**
   * When the chunk being taken in arrived (`performance.now()`), while one is (what ends a frame
   * in it happens then, give or take the chunk's handling); -1 between chunks.
   */
  get chunkTime(): number {
    return this.chunkAt;
  }

  /** The unfinished last line, cleaned (a prompt, a question). */
  get partialLine(): string {
    return this.assembler.partialLine;
  }

  /** Takes in a chunk of terminal text: everything the program printed passes here once. */
  push(text: string): void {
    // Fields read more than once are read once (each read is an inline-cache call in code not yet optimized).
    const at = performance.now();
    this.outputAt = at;
    this.chunkAt = at;
    this.chunkFed?.startOfChunk(at);
    const host = this.host;
    host.raw(text);
    if (this.rawStreams.size > 0) for (const stream of this.rawStreams) stream.push(text);
    const backlog = this.backlog;
    const waiting = backlog.push(text);
    this.queryAnswers?.noteOutput(text);
    const frame = host.frame();
    this.chunkFrame = frame;
    this.chunkFrameKnown = true;
    try {
      frame?.appendRaw(text);
      const fed = this.chunkFed;
      let rawVerdict: Verdict | undefined;
      // What `feedRaw` does, in place (a call less a chunk).
      if (fed === undefined) rawVerdict = this.feed({ raw: text });
      else {
        try {
          rawVerdict = fed.feedRaw();
        } catch (error) {
          host.detectorFailed(error);
        }
      }
      if (rawVerdict !== undefined) this.handle(rawVerdict);
      const assembler = this.assembler;
      const pushed = assembler.push(text, this.sink);
      // A cell's chunk from a shell with marks (its echo, output and prompt, and the marks) asks nothing.
      if (((pushed & PUSHED_MARKED_LINES) === 0 || !this.markedLinesAskNothing) && text.includes("\x1b") && TERMINAL_QUERY.test(text)) {
        this.syncScreen();
        this.queryAnswers?.noteOutput(afterLastQuery(text));
      }
      // Plain text lets the screen skip the middle of a long burst without looking at it again.
      if ((pushed & PUSHED_PLAIN) !== 0) backlog.markPlain(text);
      // (What waits only shrinks meanwhile, when a screen takes it.)
      if (waiting > SCREEN_BATCH_CHARS && backlog.chars > SCREEN_BATCH_CHARS) this.bound();
      // What `flush` does, in place: most chunks leave nothing to flush (a cell's output went out at its end).
      const flushed = this.chunkFrameKnown ? this.chunkFrame : host.frame();
      if (flushed !== undefined) {
        const text = flushed.flush();
        if (text !== "") this.publishFlushed(flushed, text);
      }
      const partial = assembler.partialLine;
      if (partial !== "" && partial !== this.lastPartial) {
        this.lastPartial = partial;
        this.typed.partial(partial);
        if (this.lineWatchers.size > 0) for (const watcher of this.lineWatchers) watcher(undefined, partial);
        // What `feedLine` does, in place.
        let verdict: Verdict | undefined;
        if (fed === undefined) verdict = this.feed({ line: partial, partial: true });
        else {
          try {
            verdict = fed.feedLine(partial, true);
          } catch (error) {
            host.detectorFailed(error);
          }
        }
        if (verdict !== undefined) this.handle(verdict);
      }
    } finally {
      this.chunkFrameKnown = false;
      this.chunkFrame = undefined;
    }
  }

  /** The frame output goes to now (see {@link OutputPipeline.chunkFrame}). */
  private frame(): FrameCollector | undefined {
    return this.chunkFrameKnown ? this.chunkFrame : this.host.frame();
  }

  /**
   * The chunk last pushed is taken in (and the session did what follows it): a detector that waits
   * for the end of the chunk holding a mark (shell integration: bash's prompt) acts now.
   */
  endChunk(): void {
    try {
      this.chunkFed?.endOfChunk();
    } finally {
      this.chunkAt = -1;
    }
  }

  // ── The screen ─────────────────────────────────────────────────────

  /**
   * The terminal emulator, brought up to date. It is made on first use (most sessions never need
   * one); until then output waits for it, and a long burst of plain text is fast-forwarded.
   */
  screen(): Screen {
    return this.syncScreen();
  }

  /** The screen's text as last brought up to date, without bringing it up to date ("" before it was made). */
  lastScreenText(): string {
    return this.emulator?.text() ?? "";
  }

  /** The terminal's new size: output so far was drawn at the old one, so the emulator takes it in first. */
  resize(cols: number, rows: number): void {
    this.syncScreen().resize(cols, rows);
    this.size = { cols, rows };
  }

  private syncScreen(): Screen {
    this.emulator ??= this.makeScreen();
    this.backlog.drainTo(this.emulator, this.hideMarksOf);
    return this.emulator;
  }

  /**
   * A terminal shows nothing for the detector's marks: the emulator need not parse them. Taken out of a
   * whole batch (not chunk by chunk as they come): whole marks only; one cut by a plain chunk goes as
   * it is, and the emulator joins it up.
   */
  private readonly hideMarksOf = (text: string): string =>
    this.markStart !== undefined && text.includes(this.markStart) ? text.replace((this.marks ??= this.marksPattern()), "") : text;

  /** The marks of the prefix `markStart` holds (after its ESC ]). */
  private marksPattern(): RegExp {
    return new RegExp(`\x1b\\]${escapeRegExp((this.markStart as string).slice(2))}[^\x07\x1b]*(?:\x07|\x1b\\\\)`, "g");
  }

  /**
   * Too much output waits for the emulator. Before there is one, bursts of plain output are
   * collapsed to their tails (a program that prints 15 MB of lines never makes the session load
   * an emulator); when that cannot be done safely, or there is an emulator, it parses what waits.
   */
  private bound(): void {
    // The emulator makeScreen makes: this size, no scrollback.
    if (this.emulator === undefined && this.backlog.compact(this.size.rows, SCREEN_BATCH_CHARS / 2, this.hideMarksOf)) return;
    this.syncScreen();
  }

  private makeScreen(): Screen {
    const screen = new Screen({ cols: this.size.cols, rows: this.size.rows });
    // Programs that ask the terminal (cursor position, device attributes) get the answers a terminal
    // gives, when they wait for them; otherwise the answer would be typed into the next command.
    this.queryAnswers ??= new QueryAnswers({
      isRaw: () => this.host.isRaw(),
      write: (answer) => {
        if (!this.ended) this.host.answer(answer);
      },
    });
    const answers = this.queryAnswers;
    screen.onResponse((answer) => answers.push(answer));
    return screen;
  }

  // ── Lines and the detector ─────────────────────────────────────────

  private readonly onLine = (text: string): void => {
    this.lastPartial = "";
    if (this.lineWatchers.size > 0) for (const watcher of this.lineWatchers) watcher(text, "");
    const frame = this.chunkFrameKnown ? this.chunkFrame : this.host.frame();
    if (frame === undefined && this.typed.line(text) !== undefined && !this.idleNoise) {
      // A command typed at the prompt outside any cell: the transcript shows it without the prompt.
      this.publishInput(this.typed.take() ?? "");
      this.handle(this.feedLine(text, false));
      return;
    }
    // What `feedLine` does, in place (two or three lines a cell: a call less each).
    const fed = this.chunkFed;
    let verdict: Verdict | undefined;
    if (fed === undefined) verdict = this.feed({ line: text, partial: false });
    else {
      try {
        verdict = fed.feedLine(text, false);
      } catch (error) {
        this.host.detectorFailed(error);
      }
    }
    if (verdict !== undefined) {
      const kind = verdict.kind;
      if (kind === "echo") return;
      if (kind === "output-start" || kind === "output-end") {
        this.handle(verdict);
        if (kind === "output-end") this.collect(`${text}\n`);
        return;
      }
    }
    if (this.echo?.isEcho(text) !== true) {
      // What `collect` does, in place: the frame asked again, as feeding the line may have changed it.
      const collecting = this.chunkFrameKnown ? this.chunkFrame : this.host.frame();
      if (collecting !== undefined) collecting.add(`${text}\n`);
      else if (!this.idleNoise) this.publishClean(`${text}\n`);
    }
    if (verdict !== undefined) this.handle(verdict);
  };

  /** A mark to the detector (see {@link ChunkFed}), and its verdict applied. */
  private readonly onMark = (body: string): void => {
    const fed = this.chunkFed;
    let verdict: Verdict | undefined;
    if (fed === undefined) verdict = this.feed({ mark: body });
    else {
      try {
        verdict = fed.feedMark(body);
      } catch (error) {
        this.host.detectorFailed(error);
        return;
      }
    }
    if (verdict !== undefined) this.handle(verdict);
  };

  /**
   * Complete lines of plain output at once (see `LineSink.block`): added to the frame in one piece
   * when nothing needs them one by one (no `expect()` waiting, no echo left to remove, and the
   * detector needs only the last few: those go line by line). Returns how far it took them.
   */
  private onBlock(text: string, from: number, to: number): number {
    const frame = this.frame();
    if (frame === undefined || !frame.collecting || this.lineWatchers.size > 0 || this.echo?.done === false) return from;
    const needed = this.detector.linesNeeded?.() ?? Infinity;
    if (!(needed < Infinity)) return from;
    let split = to;
    for (let line = 0; line < needed && split > from; line++) split = Math.max(from, text.lastIndexOf("\n", split - 2) + 1);
    if (split === from) return from;
    this.lastPartial = "";
    frame.addMirrored(crlfToLf(text, from, split), text, from, split, isCrlfOnly(text));
    return split;
  }

  private collect(text: string): void {
    const frame = this.chunkFrameKnown ? this.chunkFrame : this.host.frame();
    if (frame !== undefined) frame.add(text);
    else if (!this.idleNoise) this.publishClean(text);
  }

  /** Moves the clean text of the current chunk to the frame, the cell's consumers and the transcript. */
  private flush(frame = this.frame()): void {
    if (frame === undefined) return;
    const text = frame.flush();
    if (text !== "") this.publishFlushed(frame, text);
  }

  /** The clean text `frame.flush()` just gave to the cell's consumers and the transcript. */
  private publishFlushed(frame: FrameCollector, text: string): void {
    const control = this.host.cellControl();
    if (control === undefined || this.liveGate) return;
    control.push(text);
    this.publishClean(text, frame);
  }

  private readonly stageSealed = (stage: Buffer, piece: string | undefined): void => this.transcript.sealed(stage, piece);

  /** An input line in the transcript, on a line of its own (nothing for an empty one). */
  private publishInput(line: string): void {
    if (line !== "") this.publishClean(`${this.atLineStart ? "" : "\n"}${line}\n`, undefined, true);
  }

  /**
   * Clean text to the transcript and streams; `staged` is the frame whose output it just went to;
   * `endsLine`: the text ends with a line end (told by callers that made it so).
   */
  private publishClean(text: string, staged?: FrameCollector, endsLine = text.endsWith("\n")): void {
    if (text === "") return;
    this.atLineStart = endsLine;
    const stage = staged?.lastStaged;
    if (staged === undefined || stage === undefined) this.transcript.append(text);
    else {
      // A long output: the transcript points at the bytes the frame staged it in, not a copy.
      staged.onSealed ??= this.stageSealed;
      this.transcript.appendStaged(stage, staged.lastStagedFrom, staged.lastStagedTo);
    }
    if (this.cleanStreams.size > 0) for (const stream of this.cleanStreams) stream.push(text);
  }

  /** Feeds the detector and reads its answer as a {@link Verdict} (the one place that accepts the first form's shapes). */
  private feed(input: DetectorInput): Verdict | undefined {
    try {
      const result = this.detector.feed(input);
      // Most feeds say nothing (a raw chunk, most lines and marks): no call to read that as a verdict.
      if (result === undefined) return undefined;
      if (result instanceof Promise) {
        this.lateVerdict(result);
        return undefined;
      }
      return toVerdict(result);
    } catch (error) {
      this.host.detectorFailed(error);
      return undefined;
    }
  }

  /** A line (or the unfinished one) to the detector (see {@link ChunkFed}). */
  private feedLine(line: string, partial: boolean): Verdict | undefined {
    const fed = this.chunkFed;
    if (fed === undefined) return this.feed({ line, partial });
    try {
      return fed.feedLine(line, partial);
    } catch (error) {
      this.host.detectorFailed(error);
      return undefined;
    }
  }

  /** A user's detector answered with a Promise: its frame end counts only while the same frame is open. */
  private lateVerdict(result: Promise<FeedResult>): void {
    const frame = this.host.frame();
    result.then(
      (late) => {
        const verdict = toVerdict(late);
        if (verdict?.kind === "end" && this.host.frame() === frame) this.host.endFrame(verdict);
      },
      (error: unknown) => this.host.detectorFailed(error),
    );
  }

  private handle(verdict: Verdict | undefined): void {
    if (verdict === undefined) return;
    const kind = verdict.kind;
    if (kind === "echo") return;
    if (kind === "end") {
      this.chunkFrameKnown = false; // the frame may change: the host is asked again
      this.host.endFrame(verdict);
      return;
    }
    const frame = this.chunkFrameKnown ? this.chunkFrame : this.host.frame();
    if (frame === undefined) {
      // A command typed outside any cell: show its output, not the prompt and echo around it.
      if (kind === "output-start") {
        this.assembler.discardPartial();
        this.publishInput(this.typed.take() ?? "");
      } else this.assembler.flushPartial(this.sink);
      this.idleNoise = kind === "output-end";
      return;
    }
    if (kind === "output-start") {
      frame.discard();
      this.assembler.discardPartial();
      this.lastPartial = "";
      this.liveGate = false;
      frame.collecting = true;
    } else if (frame.collecting || verdict.note !== undefined) {
      // A note without a start (the detector found out late that no command ran): the rest was echo.
      if (!frame.collecting) frame.discard();
      this.assembler.flushPartial(this.sink);
      this.lastPartial = "";
      if (verdict.note !== undefined) frame.add(`${verdict.note}\n`);
      this.flush(frame);
      frame.collecting = false;
    }
  }

  // ── Cells ───────────────────────────────────────────────────────────

  /**
   * A cell's code is about to be typed (its frame is the host's from now on): its input line goes
   * to the transcript, and its echo will be removed from what follows.
   */
  startCell(code: string): void {
    this.chunkFrameKnown = false;
    this.echo = this.genericEcho ? new EchoFilter(code) : undefined;
    this.liveGate = this.detector.markPrefix !== undefined;
    this.lastPartial = "";
    const typed = this.typed.take();
    if (typed !== undefined) this.publishInput(typed);
    this.publishClean(`${this.atLineStart ? "" : "\n"}${code}\n`, undefined, true);
  }

  /** The cell's lock was released: no echo is expected any more. */
  endCell(): void {
    this.chunkFrameKnown = false;
    this.echo = undefined;
    this.liveGate = false;
  }

  /**
   * A frame ended (the program is at its prompt): what was typed at the last prompt and started
   * nothing (cancelled, refused) goes to the transcript as it was; with marks, what follows until
   * the next output is prompt and echo.
   */
  frameEnded(): void {
    this.chunkFrameKnown = false;
    const typed = this.typed.prompted(this.assembler.partialLine);
    if (typed !== undefined) this.publishInput(typed);
    this.idleNoise = this.detector.markPrefix !== undefined;
  }

  /**
   * The cell's frame ends: its last clean text goes out; when its output never "started" (a syntax
   * error, no command run: with marks) what was collected is all there is; then the detector's
   * `note` on how it ended. `partialOutput`: the start of the unfinished line (before the prompt
   * drawn after output without a final newline) is the output's last line.
   */
  closeFrame(frame: FrameCollector, control: CellControl, note: string | undefined, partialOutput?: string): void {
    this.chunkFrameKnown = false;
    if (partialOutput !== undefined && partialOutput !== "") frame.add(`${partialOutput}\n`);
    this.flush(frame);
    if (this.liveGate) {
      const text = frame.peek();
      if (text !== "") {
        control.push(text);
        this.publishClean(`${text}\n`, undefined, true);
      }
    }
    if (note !== undefined) {
      // After the output ended: the detector's word on how the cell ended.
      frame.collecting = true;
      frame.add(`${note}\n`);
      this.flush(frame);
    }
  }

  /** The unfinished line counts as output: it goes to the frame, then the frame's clean text out. */
  flushPartial(): void {
    this.chunkFrameKnown = false;
    this.assembler.flushPartial(this.sink);
    this.flush();
  }

  /**
   * The program exited: the unfinished line is output when a cell's frame is open (`keepPartial`),
   * otherwise the prompt it left, dropped. No query is answered any more.
   */
  programExited(keepPartial: boolean): void {
    this.chunkFrameKnown = false;
    this.ended = true;
    this.queryAnswers?.close();
    if (keepPartial) this.assembler.flushPartial(this.sink);
    else this.assembler.discardPartial(); // the prompt the program left, not output
    this.flush();
  }

  // ── Consumers ──────────────────────────────────────────────────────

  /**
   * Adds a line to the clean transcript and streams, as a person saw it typed
   * (on a line of its own).
   */
  recordInput(line: string): void {
    this.publishClean(`${this.atLineStart ? "" : "\n"}${line}\n`, undefined, true);
  }

  /** The last `lines` lines of the clean transcript, `\n`-joined. */
  history(lines: number): string {
    return this.transcript.lastLines(lines);
  }

  /** Calls `watcher` with every clean line, and every new unfinished line; returns how to stop. */
  watchLines(watcher: LineWatcher): () => void {
    const watchers = (this.lineWatchers = own(this.lineWatchers));
    watchers.add(watcher);
    return () => watchers.delete(watcher);
  }

  /**
   * A stream of the output from now on: terminal text (`raw`) or the clean transcript. A consumer
   * that falls behind gets `[agent-tty: dropped N bytes]` in place of what was lost. Already ended
   * when `open` is false.
   */
  stream(raw: boolean, open: boolean): BoundedQueue<string> {
    const streams = raw ? (this.rawStreams = own(this.rawStreams)) : (this.cleanStreams = own(this.cleanStreams));
    const queue = new BoundedQueue<string>({
      maxUnits: STREAM_BUFFER_BYTES,
      sizeOf: (chunk) => chunk.length,
      droppedItem: (dropped) => `[agent-tty: dropped ${dropped} bytes]`,
      onDone: () => streams.delete(queue),
    });
    if (open) streams.add(queue);
    else queue.end();
    return queue;
  }

  /** Ends every `output()` stream. */
  endStreams(): void {
    for (const stream of [...this.rawStreams, ...this.cleanStreams]) stream.end();
  }

  /** Frees the emulator. */
  dispose(): void {
    this.emulator?.dispose();
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
