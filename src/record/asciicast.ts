import { closeSync, createReadStream, openSync, writeSync } from "node:fs";
import { AgentTtyError, describeValue, invalidArgument } from "../errors.js";
import { readline } from "../internal/builtins.js";

/**
 * The first line of an asciicast v2 file.
 * @see https://docs.asciinema.org/manual/asciicast/v2/
 */
export interface AsciicastHeader {
  readonly version: 2;
  /** Terminal width in columns when the recording started. */
  readonly width: number;
  /** Terminal height in rows when the recording started. */
  readonly height: number;
  /** Unix time (seconds) when the recording started. */
  readonly timestamp?: number;
  /** The command that was recorded. */
  readonly command?: string;
  /** A title shown by players. */
  readonly title?: string;
  /** Environment the program saw: `TERM` and `SHELL`. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * One event line: seconds since the start, the event code and its data.
 * Codes: `"o"` output, `"i"` input, `"r"` resize (`"COLSxROWS"`), `"m"` mark
 * (its label).
 */
export type AsciicastEvent = readonly [time: number, code: string, data: string];

/** A whole recording, as {@link readAsciicast} and {@link parseAsciicast} return it. */
export interface Asciicast {
  readonly header: AsciicastHeader;
  readonly events: readonly AsciicastEvent[];
}

/** Options of {@link AsciicastWriter}. */
export interface AsciicastWriterOptions {
  /**
   * Events kept in memory before they are written to the file: memory stays
   * bounded whatever the program prints.
   * @default 65536
   */
  readonly flushBytes?: number;
  /**
   * Longest time an event waits in memory before it is written.
   * @default 200
   */
  readonly flushIntervalMs?: number;
}

const DEFAULT_FLUSH_BYTES = 1 << 16;
const DEFAULT_FLUSH_INTERVAL_MS = 200;

/**
 * Streams an asciicast v2 file to disk: the header at once, then one JSON
 * line per event, written in batches of at most `flushBytes` (or every
 * `flushIntervalMs`), so memory stays bounded; {@link AsciicastWriter.close}
 * writes the rest. A write that fails (disk full) stops the recording;
 * {@link AsciicastWriter.error} then says why.
 *
 * @example
 * ```ts
 * const cast = new AsciicastWriter("demo.cast", { version: 2, width: 80, height: 24 });
 * cast.output("hello\r\n");
 * cast.mark("greeted");
 * cast.close();
 * ```
 */
export class AsciicastWriter {
  /** The file being written. */
  readonly path: string;
  readonly #flushBytes: number;
  readonly #flushIntervalMs: number;
  readonly #start = performance.now();
  #fd: number | undefined;
  #pending: string[] = [];
  #pendingBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #error: Error | undefined;
  #bytesWritten = 0;

  /**
   * Creates (or truncates) `path` and writes the header.
   * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` for a bad path or size; `ERR_RECORD` when the file cannot be created.
   */
  constructor(path: string, header: AsciicastHeader, options: AsciicastWriterOptions = {}) {
    if (typeof path !== "string" || path === "" || path.includes("\0")) {
      throw invalidArgument(`Expected the recording's \`path\` to be a non-empty file path, got ${describeValue(path)}`);
    }
    for (const side of ["width", "height"] as const) {
      if (!Number.isSafeInteger(header[side]) || header[side] < 1) {
        throw invalidArgument(`Expected the recording's \`${side}\` to be a positive integer, got ${describeValue(header[side])}`);
      }
    }
    this.path = path;
    this.#flushBytes = options.flushBytes ?? DEFAULT_FLUSH_BYTES;
    this.#flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    try {
      this.#fd = openSync(path, "w", 0o644);
    } catch (error) {
      throw new AgentTtyError(
        "ERR_RECORD",
        `cannot create the recording '${path}': ${(error as Error).message}; pick a path in a directory that exists and that you can write`,
        { cause: error },
      );
    }
    const full: AsciicastHeader = { ...header, version: 2, timestamp: header.timestamp ?? Math.floor(Date.now() / 1000) };
    this.#append(`${JSON.stringify(full)}\n`);
    this.flush();
  }

  /** Why writing stopped, if it did (the file holds what came before). */
  get error(): Error | undefined {
    return this.#error;
  }

  /** Whether {@link AsciicastWriter.close} was called or writing failed. */
  get closed(): boolean {
    return this.#fd === undefined;
  }

  /** Bytes written to the file so far. */
  get bytesWritten(): number {
    return this.#bytesWritten;
  }

  /** Seconds since the recording started, as event times count them. */
  elapsed(): number {
    return (performance.now() - this.#start) / 1000;
  }

  /** Something the terminal showed (an `"o"` event). */
  output(text: string): void {
    this.event("o", text);
  }

  /** Something typed into the terminal (an `"i"` event). */
  input(text: string): void {
    this.event("i", text);
  }

  /** The terminal's new size (an `"r"` event). */
  resize(cols: number, rows: number): void {
    this.event("r", `${cols}x${rows}`);
  }

  /** A named point in time (an `"m"` event): players list them as chapters. */
  mark(label: string): void {
    this.event("m", label);
  }

  /** Appends an event of any code. Ignored after close. */
  event(code: string, data: string): void {
    if (this.#fd === undefined || (data === "" && code !== "m")) return;
    this.#append(`${JSON.stringify([Math.round(this.elapsed() * 1e6) / 1e6, code, data])}\n`);
    if (this.#pendingBytes >= this.#flushBytes) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.#flushIntervalMs).unref();
  }

  /** Writes what is held in memory to the file now. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const fd = this.#fd;
    if (fd === undefined || this.#pending.length === 0) return;
    const buffer = Buffer.from(this.#pending.join(""), "utf8");
    this.#pending = [];
    this.#pendingBytes = 0;
    try {
      let offset = 0;
      while (offset < buffer.length) offset += writeSync(fd, buffer, offset);
      this.#bytesWritten += buffer.length;
    } catch (error) {
      this.#error = error as Error;
      this.#closeFile();
    }
  }

  /** Writes the rest and closes the file. Idempotent. */
  close(): void {
    this.flush();
    this.#closeFile();
  }

  #append(line: string): void {
    this.#pending.push(line);
    // JSON text is mostly ASCII: its length is close to its UTF-8 size and cheap to know.
    this.#pendingBytes += line.length;
  }

  #closeFile(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = [];
    this.#pendingBytes = 0;
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch (error) {
      this.#error ??= error as Error;
    }
  }
}

/**
 * Parses the text of an asciicast v2 file.
 * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` when it is not asciicast v2 (the message names the line).
 */
export function parseAsciicast(text: string): Asciicast {
  const lines = text.split("\n");
  const parser = new CastParser();
  lines.forEach((line, index) => parser.line(line, index + 1));
  return parser.result();
}

/**
 * Reads an asciicast v2 file, line by line.
 * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` (rejects) when it is not asciicast v2.
 */
export async function readAsciicast(path: string): Promise<Asciicast> {
  const parser = new CastParser();
  const lines = readline().createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) parser.line(line, ++number);
  return parser.result();
}

class CastParser {
  #header: AsciicastHeader | undefined;
  readonly #events: AsciicastEvent[] = [];

  line(line: string, number: number): void {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw invalidArgument(`Expected asciicast v2 JSON on line ${number}, got ${JSON.stringify(line.slice(0, 80))}`);
    }
    if (this.#header === undefined) {
      const header = value as Partial<AsciicastHeader> | null;
      if (
        typeof header !== "object" ||
        header === null ||
        header.version !== 2 ||
        typeof header.width !== "number" ||
        typeof header.height !== "number"
      ) {
        throw invalidArgument(
          `Expected an asciicast v2 header ({"version": 2, "width", "height"}) on line ${number}, got ${JSON.stringify(line.slice(0, 80))}`,
        );
      }
      this.#header = header as AsciicastHeader;
      return;
    }
    if (
      !Array.isArray(value) ||
      value.length !== 3 ||
      typeof value[0] !== "number" ||
      typeof value[1] !== "string" ||
      typeof value[2] !== "string"
    ) {
      throw invalidArgument(
        `Expected an asciicast v2 event [time, code, data] on line ${number}, got ${JSON.stringify(line.slice(0, 80))}`,
      );
    }
    this.#events.push(value as unknown as AsciicastEvent);
  }

  result(): Asciicast {
    if (this.#header === undefined) throw invalidArgument("Expected an asciicast v2 header, got an empty file");
    return { header: this.#header, events: this.#events };
  }
}
