import stripAnsi from "strip-ansi";
import { invalidArgument, describeValue } from "../errors.js";
import { optionalPositive, optionsObject } from "../validate.js";
import { PromptConfirmer } from "./confirm.js";
import { outputBeforePrompt } from "./shared-line.js";
import { ECHO, endVerdict } from "./verdict.js";
import type { DetectorInput, DetectorIo, FrameDetector, FrameEnd, Verdict } from "./types.js";

/** Options of `detectors.prompt()`. */
export interface PromptOptions {
  /**
   * The program's continuation prompt (python's `... `), if it has one. A
   * multi-line cell is typed one line at a time, each after a prompt.
   */
  readonly continuation?: string | RegExp;
  /**
   * Turns a cell into the lines to type, one per prompt.
   * @default lines of the cell, blank lines dropped (an empty Enter repeats the last command in gdb)
   */
  readonly prepare?: (code: string) => string[];
  /** Names the detector in `decidedBy`. @default "prompt" */
  readonly name?: string;
  /**
   * How long output must stay quiet after the prompt before the frame ends:
   * for programs that print their prompt before the command's output has
   * arrived (`node inspect`'s `debug> `). New output cancels it until the
   * prompt comes back.
   * @default 0
   */
  readonly settleMs?: number;
  /**
   * What to type when a cell ends at the `continuation` prompt: the cell is incomplete (a
   * statement without its end, an unclosed quote or bracket), and the program would wait for
   * the rest for good. The bytes that drop the unfinished statement (a string), or a function
   * of the cell's code that returns them (sqlite3 needs to know what is left open). The cell
   * then settles as soon as the primary prompt is back, its output ending with a note
   * (`agent-tty: the cell is incomplete … and was cancelled`), what the program printed while
   * dropping it left out. `false`: keep waiting for the rest (the cell's timeout ends it).
   * @default "\x03" (Ctrl-C) when a `continuation` is given
   */
  readonly cancelIncomplete?: string | ((code: string) => string) | false;
}

/** The note ending the output of a REPL cell that was incomplete and cancelled. */
export const INCOMPLETE_REPL_CELL_MESSAGE =
  "agent-tty: the cell is incomplete (the program asked for the rest of it: a statement without its end, an unclosed quote or bracket) and was cancelled; fix it and run it again";

/** The note ending the output of an incomplete REPL cell the program would not drop. */
export const INCOMPLETE_REPL_CELL_KEPT_MESSAGE =
  "agent-tty: the cell is incomplete and the program still asks for the rest of it (cancelling it did not work); the next cell continues it";

/** How many times the cancel is typed when the continuation prompt keeps coming back. */
const MAX_CANCELS = 2;

type Matcher = (text: string) => boolean;

function matcher(pattern: string | RegExp, what: string): Matcher {
  if (typeof pattern === "string") {
    // Lines are matched clean: a prompt copied with its colour codes must match without them.
    const plain = stripAnsi(pattern);
    if (plain === "") throw invalidArgument(`Expected \`${what}\` to be a non-empty string or a RegExp, got ${describeValue(pattern)}`);
    return (text) => text.endsWith(plain);
  }
  if (pattern instanceof RegExp) {
    const regex = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
    return (text) => regex.test(text);
  }
  throw invalidArgument(`Expected \`${what}\` to be a string or a RegExp, got ${describeValue(pattern)}`);
}

function defaultLines(code: string): string[] {
  return code.split("\n").filter((line) => line.trim() !== "");
}

/**
 * The frame ends when the program prints its prompt: a string the
 * unfinished last line ends with (`"(gdb) "`), or a RegExp it matches
 * (`/^\(gdb\) $/`). Multi-line cells are typed line by line, each after the
 * previous prompt (primary or `continuation`), as a careful person would;
 * the echo of each typed line is removed from the output. Output without a
 * final newline (`printf hi`) has the prompt drawn after it (`hi$ `): a line
 * that ends with the primary prompt last seen alone on its line is that
 * prompt, and what is before it is output (so a prompt that changes to end
 * with the earlier one, `(venv) $ ` after `$ `, has its new start taken for
 * output once; the same line split at two prompts running is the new prompt,
 * so the same output without a final newline twice running loses the second).
 *
 * @example
 * ```ts
 * await Session.spawn({ command: "gdb", args: ["./a.out"], detector: detectors.prompt("(gdb) ") });
 * ```
 */
export function prompt(pattern: string | RegExp, options: PromptOptions = {}): FrameDetector {
  const given = optionsObject(options, ["continuation", "prepare", "name", "settleMs", "cancelIncomplete"], "prompt() options");
  const settleMs = optionalPositive(given["settleMs"], "settleMs", { allowZero: true }) ?? 0;
  if (given["prepare"] !== undefined && typeof given["prepare"] !== "function") {
    throw invalidArgument(`Expected \`prepare\` to be a function, got ${describeValue(given["prepare"])}`);
  }
  if (given["name"] !== undefined && (typeof given["name"] !== "string" || given["name"] === "")) {
    throw invalidArgument(`Expected \`name\` to be a non-empty string, got ${describeValue(given["name"])}`);
  }
  const cancelGiven = given["cancelIncomplete"];
  if (
    cancelGiven !== undefined &&
    cancelGiven !== false &&
    typeof cancelGiven !== "function" &&
    (typeof cancelGiven !== "string" || cancelGiven === "")
  ) {
    throw invalidArgument(`Expected \`cancelIncomplete\` to be a non-empty string, a function or false, got ${describeValue(cancelGiven)}`);
  }
  const isPrompt = matcher(pattern, "pattern");
  const isContinuation = options.continuation === undefined ? () => false : matcher(options.continuation, "continuation");
  const prepare = options.prepare ?? defaultLines;
  const name = options.name ?? "prompt";
  const cancelIncomplete = options.cancelIncomplete ?? "\x03";
  let io: DetectorIo | undefined;
  let pending: string[] = [];
  let lastPrompt = "";
  /** The primary prompt last seen alone on its line: a line ending with it holds output before it. */
  let known = "";
  /** The line last split into output and that prompt. */
  let lastSplit = "";
  let echoPrefix: string | undefined;
  // A prompt only counts once the Enter of the last typed line came back: before that it is a redraw.
  let lineEnded = true;
  let code = "";
  /** A cell was typed and its frame has not ended: an incomplete cell is cancelled, a person's own lines are not. */
  let inCell = false;
  /** The cell was incomplete: how many times its cancel was typed (0: not cancelling). */
  let cancels = 0;
  const confirmer = new PromptConfirmer(() => io);
  let settleTimer: NodeJS.Timeout | undefined;
  const cancelSettle = (): void => {
    if (settleTimer !== undefined) clearTimeout(settleTimer);
    settleTimer = undefined;
  };

  return {
    name,
    removesEcho: true,
    tracksPrompt: true,
    attach(detectorIo) {
      io = detectorIo;
    },
    encode(cellCode) {
      confirmer.cancel();
      cancelSettle();
      code = cellCode;
      inCell = true;
      cancels = 0;
      const lines = prepare(cellCode);
      const first = lines.shift() ?? "";
      pending = lines;
      echoPrefix = lastPrompt;
      lineEnded = false;
      return `${first}\r`;
    },
    linesNeeded() {
      // A complete line cancels a prompt check and ends the typed line: the last of a burst does that.
      // The first line after a typed one may be its echo; while an incomplete cell is dropped, every line is noise.
      return echoPrefix === undefined && cancels === 0 ? 1 : Infinity;
    },
    feed(event: DetectorInput): Verdict | undefined {
      if ("raw" in event) cancelSettle();
      if (!("line" in event)) return undefined;
      confirmer.cancel();
      if (!event.partial) {
        lineEnded = true;
        // What the program prints while it drops an incomplete cell (`^C`, `KeyboardInterrupt`, an error) is not output.
        if (cancels > 0) return ECHO;
        if (echoPrefix === undefined) return undefined;
        const prefix = echoPrefix;
        echoPrefix = undefined;
        return prefix !== "" && event.line.startsWith(prefix.trimEnd()) ? ECHO : undefined;
      }
      if (!lineEnded) return undefined;
      const line = event.line;
      // Output without a final newline, then the prompt on the same line (`hi$ `).
      let output = outputBeforePrompt(line, known);
      // The same line split at two prompts running: the prompt changed to end with the known one
      // (`(venv) $ ` after `$ `), and is known instead.
      const changed = output !== "" && line === lastSplit;
      if (changed) output = "";
      const primary = output !== "" || changed || isPrompt(line);
      if (!primary && !isContinuation(line)) return undefined;
      // Text that looks like a prompt counts once the program really waits for input:
      // `print(">>> ", end="")` followed by more work is not a prompt.
      return endVerdict(confirmer.confirm(() => act(line, primary, output)));
    },
    dispose() {
      confirmer.cancel();
      cancelSettle();
    },
  };

  // The prompt is back: type the cell's next line, or end the frame.
  // `output`: the start of the line, before the prompt (output without a final newline).
  function act(line: string, primary: boolean, output: string): FrameEnd | undefined {
    lastPrompt = line;
    if (primary && output === "") known = line;
    lastSplit = output === "" ? "" : line;
    if (cancels > 0) return primary ? cancelled() : cancelAgain();
    const next = pending.shift();
    if (next === undefined) {
      if (!primary) return cancelIncomplete === false || !inCell ? undefined : cancelAgain();
      const end: FrameEnd = output === "" ? {} : { partialOutput: output };
      if (settleMs === 0) {
        inCell = false;
        return end;
      }
      cancelSettle();
      settleTimer = setTimeout(() => {
        settleTimer = undefined;
        inCell = false;
        io?.endFrame(end);
      }, settleMs);
      return undefined;
    }
    echoPrefix = line;
    lineEnded = false;
    io?.write(`${next}\r`);
    return undefined;
  }

  // The cell ended at the continuation prompt: drop what the program holds of it.
  function cancelAgain(): FrameEnd | undefined {
    if (cancelIncomplete === false) return undefined;
    if (cancels >= MAX_CANCELS) return cancelled(INCOMPLETE_REPL_CELL_KEPT_MESSAGE);
    cancels++;
    pending = [];
    echoPrefix = undefined;
    lineEnded = false;
    io?.write(typeof cancelIncomplete === "function" ? cancelIncomplete(code) : cancelIncomplete);
    return undefined;
  }

  function cancelled(note = INCOMPLETE_REPL_CELL_MESSAGE): FrameEnd {
    cancels = 0;
    inCell = false;
    return { note };
  }
}
