import { createRequire } from "node:module";
import type { SerializeAddon } from "@xterm/addon-serialize";
import type { Terminal } from "@xterm/headless";
import { describeValue, invalidArgument } from "../errors.js";
import { isPlainText, PlainRun } from "./plain-run.js";
import { type XtermInternals, xtermInternals } from "./xterm-internals.js";

/** Options of {@link Screen}. */
export interface ScreenOptions {
  /** Width in columns. */
  readonly cols: number;
  /** Height in rows. */
  readonly rows: number;
  /**
   * Lines kept above the screen. {@link Screen.text} never shows them; they
   * matter only when a resize pulls them back into view.
   * @default 0
   */
  readonly scrollback?: number;
  /**
   * Skip emulating the middle of long bursts of plain output (text, CR, LF,
   * TAB, colours and erase-line): only enough of their tail to fill the
   * screen and the scrollback is parsed, which leaves the emulator in the
   * same state as parsing all of it. Needs xterm's synchronous parser; off
   * otherwise.
   * @default true
   */
  readonly fastForward?: boolean;
}

/** A subscription; call `dispose()` to end it. */
export interface Disposable {
  dispose(): void;
}

// @xterm/headless is a CommonJS bundle whose exports Node cannot name statically.
const require = createRequire(import.meta.url);

let xtermTerminal: typeof Terminal | undefined;

/**
 * xterm.js, loaded with the first screen: its code and the heap it fills take
 * ~10 MB of RSS, and most sessions never need an emulator.
 */
function loadXterm(): typeof Terminal {
  xtermTerminal ??= (require("@xterm/headless") as typeof import("@xterm/headless")).Terminal;
  return xtermTerminal;
}

/**
 * A headless xterm that renders what a person would see in the terminal.
 *
 * Writes are parsed synchronously when xterm's internal `writeSync` exists
 * (it does in `@xterm/headless` 6), so {@link Screen.text} always reflects
 * everything written. Otherwise writes go through xterm's public
 * asynchronous `write()`: {@link Screen.text} then shows what was parsed so
 * far and {@link Screen.flush} waits for the rest. {@link Screen.synchronous}
 * says which.
 *
 * @example
 * ```ts
 * const screen = new Screen({ cols: 80, rows: 24 });
 * screen.onResponse((bytes) => pty.write(bytes)); // answers ESC[6n etc.
 * pty.onData((data) => screen.write(data));
 * screen.text(); // "$ ls\nREADME.md  src\n$"
 * ```
 */
export class Screen {
  readonly #terminal: Terminal;
  readonly #internals: XtermInternals | undefined;
  readonly #fastForward: boolean;
  readonly #scrollback: number;
  #run: PlainRun | undefined;
  #disposed = false;
  #serializer: SerializeAddon | undefined;

  /**
   * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` when `cols`, `rows` or
   * `scrollback` is not a suitable integer.
   */
  constructor(options: ScreenOptions) {
    const { cols, rows } = options;
    checkSize("cols", cols);
    checkSize("rows", rows);
    const scrollback = options.scrollback ?? 0;
    if (!Number.isSafeInteger(scrollback) || scrollback < 0) {
      throw invalidArgument(`Expected \`scrollback\` to be a non-negative integer, got ${describeValue(scrollback)}`);
    }
    this.#scrollback = scrollback;
    const XTerm = loadXterm();
    this.#terminal = new XTerm({ cols, rows, scrollback, allowProposedApi: true, logLevel: "off" });
    this.#internals = xtermInternals(this.#terminal);
    this.#fastForward = (options.fastForward ?? true) && this.#internals !== undefined;
  }

  /** Whether writes are parsed at once (true with `@xterm/headless` 6). */
  get synchronous(): boolean {
    return this.#internals !== undefined;
  }

  /** Width in columns. */
  get cols(): number {
    return this.#terminal.cols;
  }

  /** Height in rows. */
  get rows(): number {
    return this.#terminal.rows;
  }

  /** Whether the program switched on application cursor keys (DECCKM, `CSI ? 1 h`). */
  get applicationCursorKeys(): boolean {
    return this.#terminal.modes.applicationCursorKeysMode;
  }

  /** Whether the program switched on bracketed paste (`CSI ? 2004 h`). */
  get bracketedPaste(): boolean {
    // A plain run may hold a switch of it (see PlainRun): parsed first.
    this.#settle();
    return this.#terminal.modes.bracketedPasteMode;
  }

  /** Whether the alternate screen is shown (full-screen programs: vim, less, top). */
  get alternateScreen(): boolean {
    return this.#terminal.buffer.active.type === "alternate";
  }

  /** The cursor's column and row in the visible rows, 0-based. */
  get cursor(): { x: number; y: number } {
    if (this.#disposed) return { x: 0, y: 0 };
    this.#settle();
    const buffer = this.#terminal.buffer.active;
    return { x: buffer.cursorX, y: buffer.cursorY };
  }

  /**
   * Feeds output of the program to the emulator. Ignored after {@link Screen.dispose}.
   * `plain`: the caller knows `data` holds no escape sequence and no control
   * character but TAB, CR and LF (C1 included), so it need not be checked again.
   */
  write(data: string, plain = false): void {
    if (this.#disposed || data === "") return;
    const internals = this.#internals;
    if (internals === undefined) {
      this.#terminal.write(data);
      return;
    }
    if (this.#fastForward && (plain || isPlainText(data))) {
      if (this.#run === undefined && internals.parserInGround() && internals.fullScrollRegion()) {
        this.#run = new PlainRun(2 * this.#terminal.rows + this.#scrollback);
      }
      if (this.#run !== undefined) {
        if (!this.#run.append(data)) this.#settle();
        return;
      }
    }
    this.#settle();
    internals.writeSync(data);
  }

  /**
   * Resizes the emulated terminal (the program's PTY is resized separately).
   * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` for a size that is not a positive integer.
   */
  resize(cols: number, rows: number): void {
    checkSize("cols", cols);
    checkSize("rows", rows);
    if (this.#disposed) return;
    this.#settle();
    this.#terminal.resize(cols, rows);
  }

  /**
   * The visible rows of the active screen (the alternate screen included),
   * `\n`-joined, each row's trailing spaces trimmed. Every row is there,
   * blank ones included (`rows` entries), so the text is stable enough for
   * snapshots and a row's index is its position on the screen.
   */
  text(): string {
    if (this.#disposed) return "";
    this.#settle();
    const buffer = this.#terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < this.#terminal.rows; row++) {
      lines.push(
        buffer
          .getLine(buffer.viewportY + row)
          ?.translateToString(true)
          .trimEnd() ?? "",
      );
    }
    return lines.join("\n");
  }

  /**
   * The visible screen as escape sequences that redraw it, colours,
   * attributes, cursor and terminal modes included (the alternate screen
   * too, when shown): what a terminal that starts watching is sent first.
   * Uses xterm.js's serialize addon, loaded on first use.
   */
  styledText(): string {
    if (this.#disposed) return "";
    this.#settle();
    if (this.#serializer === undefined) {
      const { SerializeAddon } = require("@xterm/addon-serialize") as typeof import("@xterm/addon-serialize");
      this.#serializer = new SerializeAddon();
      this.#terminal.loadAddon(this.#serializer);
    }
    return this.#serializer.serialize({ scrollback: 0 });
  }

  /**
   * Reports what the emulator answers to the program's terminal queries:
   * cursor position (`ESC [ 6 n`), device status (`ESC [ 5 n`), primary and
   * secondary device attributes (`ESC [ c`, `ESC [ > c`), DECRQSS and mode
   * reports. Write these bytes to the program's PTY.
   */
  onResponse(listener: (data: string) => void): Disposable {
    const subscription = this.#terminal.onData(listener);
    return { dispose: () => subscription.dispose() };
  }

  /** Resolves once everything written so far is parsed (at once when {@link Screen.synchronous}). */
  flush(): Promise<void> {
    if (this.#disposed) return Promise.resolve();
    this.#settle();
    if (this.#internals !== undefined) return Promise.resolve();
    return new Promise((resolve) => this.#terminal.write("", resolve));
  }

  /** Frees the emulator. Further writes are ignored; `text()` returns `""`. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#run = undefined;
    this.#terminal.dispose();
  }

  /** Parses the pending plain run, if any. */
  #settle(): void {
    const run = this.#run;
    if (run === undefined) return;
    this.#run = undefined;
    if (!run.isEmpty) this.#internals?.writeSync(run.take());
  }
}

function checkSize(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1 || value > 10_000) {
    throw invalidArgument(`Expected \`${name}\` to be an integer from 1 to 10000, got ${describeValue(value)}`);
  }
}
