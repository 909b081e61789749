/** Where an error's text lives, as test frameworks keep it. */
interface ErrorLike {
  message?: unknown;
  stack?: unknown;
}

/** The text added to a failed test's errors: each session's last screen and transcript, and the recordings kept. */
export function failureText(report: string, recordings: readonly string[]): string {
  const kept =
    recordings.length === 0
      ? ""
      : `\n\nrecordings (asciicast v2; play with \`asciinema play <file>\`):\n${recordings.map((file) => `  ${file}`).join("\n")}`;
  return `\n\n── agent-tty: the test's terminals when it failed ──\n${report}${kept}`;
}

/** Appends `text` to an error's message, and to the message line of its stack so reporters that print the stack show it too. */
export function appendToError(error: unknown, text: string): void {
  if (typeof error !== "object" || error === null) return;
  const target = error as ErrorLike;
  const before = typeof target.message === "string" ? target.message : "";
  try {
    // Read first: V8 formats a stack when it is first read, from the message of that moment.
    const stack = target.stack;
    target.message = `${before}${text}`;
    if (typeof stack === "string") {
      target.stack = before !== "" && stack.includes(before) ? stack.replace(before, `${before}${text}`) : `${stack}${text}`;
    }
  } catch {
    // A frozen error keeps its text.
  }
}
