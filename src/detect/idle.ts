import { optionalPositive, optionsObject } from "../validate.js";
import type { DetectorIo, FrameDetector } from "./types.js";

/** Options of `detectors.idle()`. */
export interface IdleOptions {
  /**
   * Quiet time that ends the frame.
   * @default 500
   */
  readonly ms?: number;
}

/**
 * The frame ends when the program has printed nothing for `ms`: for TUIs
 * and programs without a prompt. Slow programs that pause longer than `ms`
 * end early; prefer a prompt where there is one.
 */
export function idle(options: IdleOptions = {}): FrameDetector {
  const ms = optionalPositive(optionsObject(options, ["ms"], "idle() options")["ms"], "ms") ?? 500;
  let io: DetectorIo | undefined;
  let timer: NodeJS.Timeout | undefined;
  const restart = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      io?.endFrame({});
    }, ms);
    timer.unref();
  };
  return {
    name: "idle",
    attach(detectorIo) {
      io = detectorIo;
      restart();
    },
    encode(code) {
      restart();
      return `${code.replace(/\n/g, "\r")}\r`;
    },
    feed(event) {
      if ("raw" in event) restart();
      return undefined;
    },
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
