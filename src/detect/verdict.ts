import type { FeedResult, FrameEnd, FrameSignal, Verdict } from "./types.js";

/** The program is ready for the next cell. */
export function frameEnd(end: FrameEnd = {}): Verdict {
  return { kind: "end", ...end };
}

/** `end` as a verdict, if there is one (what a {@link PromptConfirmer}-style check found). */
export function endVerdict(end: FrameEnd | undefined): Verdict | undefined {
  return end === undefined ? undefined : frameEnd(end);
}

/** This line is echo or prompt noise, not output. */
export const ECHO: Verdict = Object.freeze({ kind: "echo" });

/** Discard what the cell collected so far: it was echo. */
export const OUTPUT_START: Verdict = Object.freeze({ kind: "output-start" });

/** Nothing after this point is the cell's output: {@link outputEnd} without a note. */
export const OUTPUT_END: Verdict = Object.freeze({ kind: "output-end" });

/** Nothing after this point is the cell's output; `note` is added to it. */
export function outputEnd(note?: string): Verdict {
  return note === undefined ? OUTPUT_END : { kind: "output-end", note };
}

/**
 * The one adapter between what `feed` may return and the {@link Verdict} the
 * session acts on: a tagged verdict passes as it is; the first form's shapes
 * (a bare {@link FrameEnd}, a {@link FrameSignal}) become the verdict they
 * stand for.
 */
export function toVerdict(result: FeedResult): Verdict | undefined {
  if (result === undefined || result === null) return undefined;
  if ("kind" in result) return result;
  if ("echo" in result) return ECHO;
  if ("output" in result)
    return (result as FrameSignal & { output: string }).output === "start" ? OUTPUT_START : outputEnd((result as { note?: string }).note);
  return frameEnd(result);
}
