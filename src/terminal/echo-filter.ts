/**
 * Removes a cell's echoed input from its output when the detector does not
 * do it exactly: the code's lines are expected back in order, each at the
 * end of a line (after whatever prompt the program shows).
 */
export class EchoFilter {
  readonly #expected: string[];
  #next = 0;

  constructor(code: string) {
    this.#expected = code
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
  }

  /** Whether every line of the code was seen echoed. */
  get done(): boolean {
    return this.#next >= this.#expected.length;
  }

  /** True (and consumed) when `line` is the echo of the next code line. */
  isEcho(line: string): boolean {
    const expected = this.#expected[this.#next];
    if (expected === undefined) return false;
    if (!line.trimEnd().endsWith(expected)) return false;
    this.#next++;
    return true;
  }
}
