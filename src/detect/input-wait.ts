import { optionalPositive, optionsObject } from "../validate.js";
import { PromptConfirmer } from "./confirm.js";
import { outputBeforePrompt } from "./shared-line.js";
import type { DetectorInput, DetectorIo, FrameDetector, FrameEnd, Verdict } from "./types.js";
import { endVerdict } from "./verdict.js";

/** Options of `detectors.inputWait()`. */
export interface InputWaitOptions {
  /**
   * Quiet time after which a program blocked reading the terminal counts as
   * waiting, when its prompt is not the one it showed at start (a question,
   * a changed prompt). The prompt it showed at start ends a cell at once.
   * @default 300
   */
  readonly quietMs?: number;
  /**
   * Where the system cannot tell whether the program reads the terminal (no
   * Linux `/proc`): the quiet time that ends a frame.
   * @default 1000
   */
  readonly fallbackQuietMs?: number;
}

/** Quiet time before the first prompt is taken (the program's banner may come in pieces). */
const READY_QUIET_MS = 100;
/** How often the program is looked at while what was typed is not seen to reach it. */
const ARRIVAL_CHECK_MS = 50;

/**
 * Zero-configuration framing that types nothing but the cell: a frame ends
 * when the program waits for input again. The prompt the program shows when
 * it first waits is learned; a cell ends as soon as that prompt is back and
 * the program is blocked reading the terminal (Linux `/proc`). A program
 * that waits at another prompt (a question, a changed prompt) ends the cell
 * once it has been quiet for `quietMs`; where `/proc` cannot tell, quiet
 * output for `fallbackQuietMs` does. So it does while the cell's code is not
 * seen to reach the program (under load Linux hands it over late, and the
 * program sleeps on at its prompt meanwhile): nothing printed since, and the
 * program has not run since. A line that ends with the prompt shown
 * at start is that prompt drawn after output without a final newline
 * (`hi$ `): what is before it is output. Programs that watch the terminal while
 * they work (event loops) look like they wait when quiet: give them
 * `prompt()`.
 */
export function inputWait(options: InputWaitOptions = {}): FrameDetector {
  const given = optionsObject(options, ["quietMs", "fallbackQuietMs"], "inputWait() options");
  const quietMs = optionalPositive(given["quietMs"], "quietMs") ?? 300;
  const fallbackQuietMs = optionalPositive(given["fallbackQuietMs"], "fallbackQuietMs") ?? 1_000;
  let io: DetectorIo | undefined;
  let learned: string | undefined;
  let partial = "";
  /** The unfinished line the last frame's end split into output and prompt. */
  let lastSplit = "";
  /** When the program last printed, or the cell was typed. */
  let quietSince = performance.now();
  /** Whether the frame's end was held because what was typed was not seen to reach the program. */
  let held = false;
  let timer: NodeJS.Timeout | undefined;
  const confirmer = new PromptConfirmer(() => io);

  const end = (): FrameEnd => {
    if (learned === undefined && partial.trim() !== "") learned = partial;
    let output = outputBeforePrompt(partial, learned);
    // The same line split at two ends running: the prompt changed to end with the learned one
    // (`(venv) $ ` after `$ `), and is learned instead.
    if (output !== "" && partial === lastSplit) {
      learned = partial;
      output = "";
    }
    lastSplit = output === "" ? "" : partial;
    return output === "" ? {} : { partialOutput: output };
  };
  const stopWaiting = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    confirmer.cancel();
  };
  // Quiet for long enough: ends the frame if the program reads the terminal.
  const whenQuiet = (ms: number): void => {
    stopWaiting();
    timer = setTimeout(() => {
      timer = undefined;
      const quietFor = performance.now() - quietSince;
      // Blocked reading may be the wait before the cell's code arrived: only the longer quiet ends it then.
      const arrived = io?.inputArrived?.() !== false;
      if (!arrived && quietFor < fallbackQuietMs) {
        held = true;
        whenQuiet(Math.min(ARRIVAL_CHECK_MS, fallbackQuietMs - quietFor));
        return;
      }
      if (held && arrived) {
        // It arrived just now (the program ran to take it): what it prints may be on its way, quiet counts from now.
        held = false;
        quietSince = performance.now();
        whenQuiet(nextQuiet());
        return;
      }
      held = false;
      const waiting = io?.waitingForInput();
      if (waiting === undefined) {
        if (quietFor >= fallbackQuietMs) io?.endFrame(end());
        else whenQuiet(fallbackQuietMs - quietFor);
        return;
      }
      const found = confirmer.confirm(end);
      if (found !== undefined) io?.endFrame(found);
    }, ms);
  };
  const nextQuiet = (): number => (learned === undefined ? READY_QUIET_MS : quietMs);

  return {
    name: "input-wait",
    attach(detectorIo) {
      io = detectorIo;
      whenQuiet(READY_QUIET_MS);
    },
    encode(code) {
      partial = "";
      quietSince = performance.now();
      held = false;
      whenQuiet(nextQuiet());
      return `${code.replace(/\n/g, "\r")}\r`;
    },
    feed(event: DetectorInput): Verdict | undefined {
      if ("raw" in event) {
        quietSince = performance.now();
        held = false;
        whenQuiet(nextQuiet());
        return undefined;
      }
      if (!("line" in event)) return undefined;
      partial = event.partial ? event.line : "";
      // The prompt it showed at start is back (after output without a final newline, on its last line): no need to wait for quiet.
      if (event.partial && learned !== undefined && (event.line === learned || outputBeforePrompt(event.line, learned) !== "")) {
        stopWaiting();
        return endVerdict(confirmer.confirm(end));
      }
      return undefined;
    },
    dispose() {
      stopWaiting();
    },
  };
}
