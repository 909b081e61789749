import { describeValue, invalidArgument } from "../errors.js";
import { optionalPositive, optionsObject } from "../validate.js";
import type { DetectorIo, FrameDetector } from "./types.js";

/** Options of `detectors.external()`. */
export interface ExternalOptions {
  /**
   * When the program counts as ready for its first cell: `"quiet"` once its
   * output paused for `quietMs` (a TUI drew its first screen), `"signal"`
   * when its hook first calls back.
   * @default "quiet"
   */
  readonly readyOn?: "quiet" | "signal";
  /**
   * The pause that means "ready" with `readyOn: "quiet"`.
   * @default 300
   */
  readonly quietMs?: number;
  /**
   * After a signal, output that is still arriving (the last redraw of the
   * turn, which the hook's call can overtake) is waited for until it pauses
   * this long, counted from the signal, so it is part of the cell.
   * @default 50
   */
  readonly settleMs?: number;
}

/** A detector driven from outside: {@link ExternalDetector.signal} ends the frame. */
export interface ExternalDetector extends FrameDetector {
  /** Ends the current frame (`"stop"`: the turn finished; `"error"`: it failed, exit code 1). */
  signal(event: "stop" | "error", payload?: unknown): boolean;
}

/**
 * The frame ends when the program's own hook says so, through
 * `session.signal("stop")` or the server's `POST /api/sessions/:name/signal`:
 * for TUI agent CLIs whose "turn finished" hook knows better than any
 * prompt. Nothing in the output ends a frame; a turn that never signals
 * ends by the cell's timeout.
 *
 * @example
 * ```ts
 * const agent = await Session.spawn({ command: "my-agent", detector: detectors.external() });
 * // the agent's stop hook runs: curl -X POST "$AGENT_TTY_SIGNAL_URL" -H "Authorization: Bearer $AGENT_TTY_SIGNAL_TOKEN"
 * const turn = await agent.run("summarise README.md", { timeoutMs: 120_000 });
 * ```
 */
export function external(options: ExternalOptions = {}): ExternalDetector {
  const given = optionsObject(options, ["readyOn", "quietMs", "settleMs"], "external() options");
  const readyOn = given["readyOn"] ?? "quiet";
  if (readyOn !== "quiet" && readyOn !== "signal") {
    throw invalidArgument(`Expected \`readyOn\` to be "quiet" or "signal", got ${describeValue(readyOn)}`);
  }
  const quietMs = optionalPositive(given["quietMs"], "quietMs") ?? 300;
  const settleMs = optionalPositive(given["settleMs"], "settleMs", { allowZero: true }) ?? 50;
  let io: DetectorIo | undefined;
  let ready = false;
  let lastRawAt = 0;
  let quietTimer: NodeJS.Timeout | undefined;
  let settleTimer: NodeJS.Timeout | undefined;

  // After Ctrl-C a TUI stops its turn without calling its hook (and redraws
  // at every Ctrl-C the session repeats): the frame ends `quietMs` later.
  let interruptTimer: NodeJS.Timeout | undefined;
  const becomeReadyWhenQuiet = (): void => {
    if (ready || readyOn !== "quiet") return;
    if (quietTimer !== undefined) clearTimeout(quietTimer);
    quietTimer = setTimeout(() => {
      quietTimer = undefined;
      if (ready) return;
      // Nothing printed yet and not reading either: still starting (a loaded machine), not quiet.
      if (lastRawAt === 0 && io?.waitingForInput() === false) return becomeReadyWhenQuiet();
      ready = true;
      io?.endFrame({});
    }, quietMs);
    quietTimer.unref();
  };
  // The hook's call can overtake the turn's last output (it is still in the terminal, unread): the
  // frame ends once output has paused for settleMs, counted from the signal at the earliest.
  const endWhenSettled = (end: { exitCode: number | null }, signalledAt: number): void => {
    if (settleTimer !== undefined) clearTimeout(settleTimer);
    const quietFor = performance.now() - Math.max(lastRawAt, signalledAt);
    if (quietFor >= settleMs) {
      settleTimer = undefined;
      io?.endFrame(end);
      return;
    }
    settleTimer = setTimeout(() => endWhenSettled(end, signalledAt), Math.max(1, settleMs - quietFor));
  };

  return {
    name: "external",
    attach(detectorIo) {
      io = detectorIo;
      becomeReadyWhenQuiet();
    },
    interruptSequence() {
      if (interruptTimer === undefined) {
        interruptTimer = setTimeout(() => {
          interruptTimer = undefined;
          io?.endFrame({ exitCode: null });
        }, quietMs);
      }
      return "\x03";
    },
    encode(code) {
      if (interruptTimer !== undefined) clearTimeout(interruptTimer);
      interruptTimer = undefined;
      if (settleTimer !== undefined) clearTimeout(settleTimer);
      settleTimer = undefined;
      return `${code.replace(/\n/g, "\r")}\r`;
    },
    feed(event) {
      if ("raw" in event) {
        lastRawAt = performance.now();
        becomeReadyWhenQuiet();
      }
      return undefined;
    },
    signal(event) {
      if (io === undefined) return false;
      if (!ready) {
        ready = true;
        if (quietTimer !== undefined) clearTimeout(quietTimer);
        io.endFrame({});
        return true;
      }
      endWhenSettled({ exitCode: event === "error" ? 1 : null }, performance.now());
      return true;
    },
    dispose() {
      if (interruptTimer !== undefined) clearTimeout(interruptTimer);
      if (quietTimer !== undefined) clearTimeout(quietTimer);
      if (settleTimer !== undefined) clearTimeout(settleTimer);
    },
  };
}
