import type { SpawnPlan } from "../pty/spawn-plan.js";

export type { SpawnPlan } from "../pty/spawn-plan.js";
import type { NestedProgram, NestingChange } from "./nested.js";

/** Returned by a detector when the program is ready for the next cell. */
export interface FrameEnd {
  /** The cell's exit status, where the detector can know it. */
  exitCode?: number | null;
  /** The program's working directory after the cell, where known. */
  cwd?: string;
  /** How many trailing complete lines of the cell's output were frame noise (a prompt echoed by Enter, say). */
  dropLines?: number;
  /**
   * Text cut from the end of the output once `dropLines` are gone, when the output ends with it: a
   * prompt drawn on the output's last line (output without a final newline, `printf hi`, shows `hi$ `).
   */
  dropSuffix?: string;
  /**
   * The start of the unfinished last line that is the cell's output, not its prompt: output
   * without a final newline has the prompt drawn after it (`hi$ ` keeps `hi`). Added as the
   * output's last line.
   */
  partialOutput?: string;
  /** The cell entered or left a nested program (becomes `CellResult.nested`). */
  nested?: NestingChange;
  /** A line added to the end of the cell's output (why the frame ended the way it did). */
  note?: string;
}

/** The process group in the foreground of the terminal (Linux /proc), as {@link DetectorIo.foreground} tells it. */
export interface ForegroundProgram {
  /** The group's leader (its process group id). */
  readonly pid: number;
  /** Its command name (`comm`). */
  readonly name: string;
  /** Its argv (empty when it cannot be read). */
  readonly commandLine: readonly string[];
  /** Whether it is blocked reading the terminal. */
  readonly waiting: boolean;
  /** True when it is the program the session started (the PTY's own process group). */
  readonly isSessionProgram: boolean;
}

/**
 * A detector's answer to what it was just fed, tagged by `kind`:
 *
 * - `{ kind: "end", …FrameEnd }`: the program is ready for the next cell;
 * - `{ kind: "echo" }`: this line is echo or prompt noise, not output;
 * - `{ kind: "output-start" }`: discard what the cell collected so far (it was echo);
 * - `{ kind: "output-end", note? }`: nothing after this point is the cell's output
 *   (`note`: a line added to the output, such as why the cell could not run).
 *
 * `feed` returns it synchronously; a verdict reached later (from a timer or a
 * child process) goes through {@link DetectorIo.endFrame}. Built-in detectors
 * answer this way.
 */
export type Verdict =
  | ({ readonly kind: "end" } & FrameEnd)
  | { readonly kind: "echo" }
  | { readonly kind: "output-start" }
  | {
      readonly kind: "output-end";
      /** A line the detector adds to the output, such as why the cell could not run. */ readonly note?: string;
    };

/**
 * The first form of {@link Verdict}, still accepted from `feed`: `{ echo: true }`
 * (`kind: "echo"`), `{ output: "start" }` (`kind: "output-start"`) and
 * `{ output: "end", note? }` (`kind: "output-end"`); a bare {@link FrameEnd}
 * stands for `kind: "end"`.
 */
export type FrameSignal =
  | { readonly echo: true }
  | { readonly output: "start" }
  | { readonly output: "end"; /** A line the detector adds to the output, such as why the cell could not run. */ readonly note?: string };

/**
 * What a detector is fed: raw chunks as the terminal produced them, clean
 * lines, and (for detectors that set {@link FrameDetector.markPrefix}) the
 * body of every OSC escape sequence starting with that prefix, in stream order.
 */
export type DetectorInput = { readonly raw: string } | { readonly line: string; readonly partial: boolean } | { readonly mark: string };

/**
 * What `feed` may return: a {@link Verdict}, nothing (keep going), or the
 * first form's shapes (a bare {@link FrameEnd}, a {@link FrameSignal}), which
 * the session reads as the verdict they stand for. A user's detector may also
 * return a Promise of one; only its frame end counts, and only while the same
 * frame is open (prefer {@link DetectorIo.endFrame} for late verdicts).
 */
export type FeedResult = Verdict | FrameEnd | FrameSignal | undefined;

/**
 * Given to a detector once, after the program started: lets it write to
 * the terminal (for example the next line of a cell, after a continuation
 * prompt) and end a frame from a timer or a child process.
 */
export interface DetectorIo {
  /** Writes bytes to the terminal. */
  write(data: string): void;
  /** Ends the current frame (or the ready wait) as if `feed` had returned `end`. */
  endFrame(end?: FrameEnd): void;
  /**
   * Whether the program in the foreground is blocked reading the terminal
   * right now (Linux /proc) with nothing it printed left unread: output still
   * in the terminal makes it `false`, and is fed (before anything read
   * later) once the current call returns. `undefined` where the system
   * cannot tell.
   */
  waitingForInput(): boolean | undefined;
  /**
   * Whether what was typed last (the cell's code, or input written into the cell since) was seen to
   * reach the program: it printed since, or ran since (Linux /proc). Under load Linux hands typed
   * input to the program late, and a program asleep in its read meanwhile looks like it waits for
   * input (`waitingForInput()` is true) before it was even given the cell. `true` where the system
   * cannot tell, and between cells.
   */
  inputArrived?(): boolean;
  /** Who is in the terminal's foreground now (Linux /proc); `undefined` where the system cannot tell. */
  foreground?(): ForegroundProgram | undefined;
  /** Reports a failure the detector met outside `feed` (a hook's promise rejected): the session emits an `error` event. */
  reportError?(error: unknown): void;
}

/**
 * Decides where a cell's output ends: the program is waiting again. One
 * detector instance belongs to one session. Built-in detectors are made by
 * the factories in `detectors`; a user can write their own.
 *
 * @example
 * ```ts
 * const dollar: FrameDetector = {
 *   name: "dollar",
 *   feed: (event) => ("line" in event && event.partial && event.line.endsWith("$ ") ? {} : undefined),
 * };
 * ```
 */
export interface FrameDetector {
  /** Names the detector in `CellResult.decidedBy`. */
  readonly name: string;
  /** Adjust how the program is started (args, env, files), once. */
  setup?(spawn: SpawnPlan): SpawnPlan | Promise<SpawnPlan>;
  /** The bytes that submit a cell. Default: code + "\r". Called once per cell, right before it is written. */
  encode?(code: string): string;
  /**
   * Sees the cell's output as it arrives: raw chunks and clean lines (the
   * unfinished last line too, flagged `partial`, each time a read of the
   * terminal ends with it; the same partial text is not fed twice). Returns a
   * {@link FrameEnd} when the program is ready for the next cell.
   */
  feed(event: DetectorInput): FeedResult | Promise<FeedResult>;
  /**
   * How many of the last complete lines of a burst of plain output `feed`
   * must see, asked before each burst: the lines before them are added to
   * the output without being fed (a 15 MB output then costs no call per
   * line). `Infinity` (or no method) feeds every line; `0` none. Partial
   * lines, raw chunks and marks are fed as always.
   */
  linesNeeded?(): number;
  /** Called once after the program started, before any `feed`. */
  attach?(io: DetectorIo): void;
  /** The bytes `interrupt()` writes. Default: Ctrl-C ("\x03"). */
  interruptSequence?(): string;
  /**
   * Bytes that drop whatever is on the program's input line without submitting it. Written after an
   * interrupt: a line editor that caught the Ctrl-C at its prompt acts on it only when it reads a key,
   * and would otherwise eat the start of the next cell.
   */
  clearLineSequence?(): string;
  /** OSC bodies starting with this prefix are fed as `{ mark }` events. */
  readonly markPrefix?: string;
  /** True when the detector removes echo itself (via `{ echo }` / `{ output }`), so the session's generic echo filter stays off. */
  readonly removesEcho?: boolean;
  /**
   * True when `feed` reports every prompt, also outside cells (after input typed with `write()`):
   * a cell is then held until the program is back at its prompt instead of being typed into a
   * command that is still running.
   */
  readonly tracksPrompt?: boolean;
  /**
   * True when an interrupt must be typed (the detector's interrupt sequence written to the
   * terminal) rather than sent as SIGINT to the local foreground job: the program that runs the
   * cell is on another machine (ssh) or in a container.
   */
  interruptByKey?(): boolean;
  /** The nested programs the cells now go to, outermost first (see `Session.nested`). */
  nestedStack?(): readonly NestedProgram[];
  /** Releases timers and child processes; called when the session closes. */
  dispose?(): void;
}
