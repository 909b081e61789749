/**
 * The output before `prompt` on `line`: output without a final newline has the prompt drawn after it
 * on its last line (`printf hi` leaves `hi$ `). `""` when the line is not longer than the prompt or
 * does not end with it (or there is no prompt).
 *
 * @internal
 */
export function outputBeforePrompt(line: string, prompt: string | undefined): string {
  return prompt !== undefined && prompt !== "" && line.length > prompt.length && line.endsWith(prompt) ? line.slice(0, -prompt.length) : "";
}
