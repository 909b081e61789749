import { CappedText } from "./internal/capped-text.js";

/** The marker line put in place of the middle of a truncated output. */
export function omittedMarker(bytes: number): string {
  return `[… ${bytes} bytes omitted …]`;
}

/** The output of one frame, finished. */
export interface FrameOutput {
  readonly output: string;
  readonly truncated: boolean;
  readonly omittedBytes: number;
  readonly raw: string;
  readonly rawOmittedBytes: number;
}

/**
 * What the terminal produced between writing a cell (or starting the
 * program) and the frame's end: the clean output, bounded, and the raw bytes.
 */
export class FrameCollector {
  #output: CappedText;
  readonly #raw: CappedText;
  readonly #maxBytes: number;
  #pieces: string[] = [];
  /** False once the detector said output is over (the rest is prompt). */
  collecting = true;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
    this.#output = new CappedText(maxBytes);
    this.#raw = new CappedText(maxBytes);
  }

  appendRaw(text: string): void {
    this.#raw.append(text);
  }

  /** Adds clean text; taken in by `flush()`. */
  add(text: string): void {
    if (this.collecting) this.#pieces.push(text);
  }

  /** Moves what `add()` gathered into the output; returns it. */
  flush(): string {
    if (this.#pieces.length === 0) return "";
    const text = this.#pieces.length === 1 ? (this.#pieces[0] as string) : this.#pieces.join("");
    this.#pieces = [];
    this.#output.append(text);
    return text;
  }

  /** Forgets the output so far (it was echo). */
  discard(): void {
    this.#pieces = [];
    this.#output = new CappedText(this.#maxBytes);
  }

  /** The output so far, uncut. */
  peek(): string {
    return trimFinalNewline(this.#output.peek() + this.#pieces.join(""));
  }

  finish(dropLines = 0): FrameOutput {
    this.flush();
    const output = this.#output.finish(omittedMarker);
    const raw = this.#raw.finish(omittedMarker);
    return {
      output: dropTrailingLines(trimFinalNewline(output.text), dropLines),
      truncated: output.truncated,
      omittedBytes: output.omittedBytes,
      raw: raw.text,
      rawOmittedBytes: raw.omittedBytes,
    };
  }
}

function trimFinalNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

function dropTrailingLines(text: string, count: number): string {
  let end = text.length;
  for (let dropped = 0; dropped < count && end > 0; dropped++) {
    const newline = text.lastIndexOf("\n", end - 1);
    end = newline === -1 ? 0 : newline;
  }
  return text.slice(0, end);
}
