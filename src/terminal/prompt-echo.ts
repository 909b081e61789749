/** Most bytes kept of one command typed at a prompt (its continuation lines included); the rest is counted, not kept. */
export const MAX_COMMAND_BYTES = 16 * 1024;

/**
 * Reads the commands typed at a program's prompt outside any cell from the
 * terminal's echo of them: the line that starts with the prompt the program
 * last drew, less that prompt. Reading the echo rather than the keystrokes
 * gets what a person saw, whoever typed it (`write`/`type`/`press`, a person
 * attached or taking over on the web page) and however (a history recall
 * with Up, completion, line editing): the line editor redraws the line, and
 * the clean line is what it showed when Enter was pressed.
 *
 * Where the program's echo is hidden until the command starts (shell
 * integration), the lines after the prompt's line (continuation lines, an
 * error about the command) are kept with it until {@link take}, bounded by
 * {@link MAX_COMMAND_BYTES}.
 */
export class PromptEcho {
  /** The prompt as drawn, while the next line may be the one typed after it. */
  private prompt: string | undefined;
  /** The last prompt drawn, and how the current line looked when it was first seen unfinished. */
  private lastPrompt: string | undefined;
  private lineStart: string | undefined;
  /** The command read from the last prompt line and the lines after it, until taken. */
  private lines: string[] = [];
  private bytes = 0;
  private omitted = 0;

  /**
   * The program drew its prompt: `text` is its line so far (the prompt
   * itself, cleaned). Returns what was typed at the last prompt and not
   * taken yet (a command that started nothing: cancelled, or refused with
   * an error), or `undefined`.
   */
  prompted(text: string): string | undefined {
    const left = this.take();
    this.prompt = text;
    this.lastPrompt = text;
    return left;
  }

  /**
   * The unfinished last line now reads `text`. A line that began as exactly
   * the last prompt is a prompt line too when the program's prompt was not
   * confirmed yet as it was typed at (a prompt detector confirms it a moment
   * after it is drawn).
   */
  partial(text: string): void {
    this.lineStart ??= text;
  }

  /**
   * A complete line seen outside any cell. Returns the command typed at the
   * prompt when the line is the prompt's line (only the first line after a
   * prompt can be), `undefined` otherwise. The command, and the lines after
   * it until {@link take}, are kept.
   */
  line(text: string): string | undefined {
    const lineStart = this.lineStart;
    this.lineStart = undefined;
    let prompt = this.prompt;
    if (prompt === undefined && this.lines.length === 0 && lineStart !== undefined && lineStart === this.lastPrompt && lineStart !== "")
      prompt = lineStart;
    if (prompt === undefined) {
      if (this.lines.length > 0) this.keep(text);
      return undefined;
    }
    this.prompt = undefined;
    if (!text.startsWith(prompt)) return undefined;
    const command = text.slice(prompt.length).trimEnd();
    this.keep(command);
    return command;
  }

  /** What was typed at the last prompt (its lines `\n`-joined) once, or `undefined`. */
  take(): string | undefined {
    this.prompt = undefined;
    if (this.lines.length === 0) return undefined;
    const text = this.lines.join("\n").trimEnd();
    const omitted = this.omitted;
    this.lines = [];
    this.bytes = 0;
    this.omitted = 0;
    // Escaped, as in every module a driver loads: one non-ASCII character makes V8 hold the module's whole source at two bytes a character.
    return omitted > 0 ? `${text}\n[\u2026 ${omitted} bytes omitted \u2026]` : text;
  }

  private keep(line: string): void {
    const bytes = Buffer.byteLength(line) + 1;
    if (this.omitted > 0 || this.bytes + bytes > MAX_COMMAND_BYTES) {
      if (this.omitted === 0 && this.lines.length === 0) {
        // A first line too long to keep whole: its start, and the count of the rest.
        const kept = Buffer.from(line)
          .subarray(0, MAX_COMMAND_BYTES)
          .toString()
          .replace(/\uFFFD$/, "");
        this.lines.push(kept);
        this.omitted += bytes - Buffer.byteLength(kept);
        return;
      }
      this.omitted += bytes;
      return;
    }
    this.lines.push(line);
    this.bytes += bytes;
  }
}
