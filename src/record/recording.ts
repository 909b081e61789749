import { type AsciicastHeader, AsciicastWriter, type AsciicastWriterOptions } from "./asciicast.js";

/** Options of `session.record()`. */
export interface RecordOptions extends AsciicastWriterOptions {
  /** The title players show. @default the session's name */
  readonly title?: string;
}

/**
 * A recording of a session in progress (from `Session.spawn({ record })` or
 * `session.record(path)`): an asciicast v2 file with what the terminal
 * showed (`o`), what was typed into it (`i`), resizes (`r`) and a mark
 * (`m`) where each cell starts and ends. Streamed to disk as it goes;
 * {@link Recording.stop} (or the session's `close()`) writes the rest.
 */
export class Recording {
  readonly #writer: AsciicastWriter;
  readonly #detach: () => void;

  /** @internal Made by `session.record()`. */
  constructor(path: string, header: AsciicastHeader, options: AsciicastWriterOptions, detach: () => void) {
    this.#writer = new AsciicastWriter(path, header, options);
    this.#detach = detach;
  }

  /** The file being written. */
  get path(): string {
    return this.#writer.path;
  }

  /** Whether events are still being recorded. */
  get active(): boolean {
    return !this.#writer.closed;
  }

  /** Why recording stopped early (a write failed, e.g. the disk is full), if it did. */
  get error(): Error | undefined {
    return this.#writer.error;
  }

  /** Bytes written to the file so far. */
  get bytesWritten(): number {
    return this.#writer.bytesWritten;
  }

  /** Adds a mark with this label now (players list marks as chapters). */
  mark(label: string): void {
    this.#writer.mark(label);
  }

  /** Stops recording: what is held in memory is written and the file closed. Idempotent. */
  stop(): void {
    this.#writer.close();
    this.#detach();
  }

  /** @internal */
  output(text: string): void {
    this.#writer.output(text);
  }

  /** @internal */
  input(text: string): void {
    this.#writer.input(text);
  }

  /** @internal */
  resize(cols: number, rows: number): void {
    this.#writer.resize(cols, rows);
  }
}
