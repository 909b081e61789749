import { isLinuxProcAvailable } from "../pty/proc-state.js";
import { optionalPositive, optionsObject } from "../validate.js";
import { PromptConfirmer } from "./confirm.js";
import { outputBeforePrompt } from "./shared-line.js";
import type { DetectorInput, DetectorIo, FrameDetector, Verdict } from "./types.js";
import { endVerdict } from "./verdict.js";

/** Options of `detectors.repeatEnter()`. */
export interface RepeatEnterOptions {
  /**
   * How many empty Enters follow each cell; that many identical lines in a
   * row end the frame.
   *
   * By default 2 where Linux `/proc` can tell whether the program waits for
   * input (a frame ends only once it is seen blocked reading its terminal
   * with nothing unread, which is what keeps a printed look-alike prompt or a
   * flood of identical lines from ending a cell), and 5 where it cannot (the
   * run of identical lines is then all there is to go by). Every Enter is one
   * more prompt the program answers before the cell ends.
   * @default 2 on Linux, 5 elsewhere
   */
  readonly count?: number;
}

/** Default `count`: fewer Enters where `/proc` confirms the prompt, more where the run of lines is all there is. */
const DEFAULT_COUNT_CONFIRMED = 2;
const DEFAULT_COUNT_UNCONFIRMED = 5;

/**
 * Zero-config framing for any line-oriented program: each cell is followed
 * by `count` empty Enters (2 on Linux, 5 elsewhere); once the program has
 * answered them all with the same line (its prompt, repeated), it is
 * waiting again. Those lines are
 * dropped from the output. After output without a final newline (`printf hi`),
 * the first of those prompts shares the output's last line (`hi$ `): it is cut
 * from there. The prompt must be visible (empty lines do not
 * count). Programs that read stdin during a cell see the Enters; prefer
 * `prompt()` or shell integration where they apply.
 */
export function repeatEnter(options: RepeatEnterOptions = {}): FrameDetector {
  const count =
    optionalPositive(optionsObject(options, ["count"], "repeatEnter() options")["count"], "count", { integer: true }) ??
    (isLinuxProcAvailable() ? DEFAULT_COUNT_CONFIRMED : DEFAULT_COUNT_UNCONFIRMED);
  const enters = "\r".repeat(count);
  let last: string | undefined;
  let run = 0;
  /** The complete line before the run of identical ones (as printed), and the last complete line. */
  let beforeRun: string | undefined;
  let lastLine: string | undefined;
  let io: DetectorIo | undefined;
  const confirmer = new PromptConfirmer(() => io);
  const reset = () => {
    last = undefined;
    run = 0;
    beforeRun = undefined;
    lastLine = undefined;
    confirmer.cancel();
  };
  const end = (dropLines: number, dropSuffix?: string) =>
    endVerdict(
      confirmer.confirm(() => {
        reset();
        return dropSuffix === undefined ? { dropLines } : { dropLines, dropSuffix };
      }),
    );
  return {
    name: "repeat-enter",
    attach(detectorIo) {
      io = detectorIo;
      io.write(enters);
    },
    encode(code) {
      reset();
      return `${code.replace(/\n/g, "\r")}\r${enters}`;
    },
    interruptSequence() {
      reset();
      return `\x03${enters}`;
    },
    dispose() {
      confirmer.cancel();
    },
    linesNeeded() {
      // Only the run of identical lines at the end counts, and only up to `count`.
      return count + 1;
    },
    feed(event: DetectorInput): Verdict | undefined {
      if (!("line" in event)) return undefined;
      const line = event.line.trimEnd();
      confirmer.cancel();
      if (event.partial) {
        // Ready only once the prompt is drawn again (text written earlier would meet a cooked
        // terminal) and the program waits for input (a flood of identical lines is not a prompt).
        if (line === last && run >= count) return end(count);
        // The first prompt drawn on the output's last line (no final newline: `hi$ `), then one
        // complete prompt line per Enter but the last: as many prompts as in a run of `count`.
        const runLength = line === last ? run : 0;
        const shared = line === last ? beforeRun : lastLine;
        if (runLength !== count - 1 || line === "" || shared === undefined) return undefined;
        if (outputBeforePrompt(shared, event.line) === "") return undefined;
        return end(runLength, event.line);
      }
      // Empty lines are the terminal echoing Enters before the program reads them, not its prompt.
      if (line === "") {
        reset();
        return undefined;
      }
      if (line === last) run++;
      else {
        beforeRun = lastLine;
        last = line;
        run = 1;
      }
      lastLine = event.line;
      return undefined;
    },
  };
}
