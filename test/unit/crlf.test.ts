import { describe, expect, it } from "vitest";
import { crlfToLf } from "../../src/terminal/crlf.js";

describe("crlfToLf", () => {
  it("gives what replaceAll gives, for ASCII, multi-byte and astral text, at any offsets", () => {
    const texts = [
      "1\r\n2\r\n3\r\n",
      "head\r\nline é€ one\r\n😀 two\r\n\r\n\ttab\r\n",
      "no line end at all",
      "just\nLF\n",
      Array.from({ length: 3_000 }, (_, index) => `${index} ${"é".repeat(index % 5)}\r\n`).join(""),
    ];
    for (const text of texts) {
      for (const [from, to] of [
        [0, text.length],
        [text.indexOf("\n") + 1, text.length],
        [0, text.lastIndexOf("\n") + 1],
      ] as const) {
        expect(crlfToLf(text, from, to)).toBe(text.slice(from, to).replaceAll("\r\n", "\n"));
      }
    }
  });

  it("a part longer than its scratch buffer is converted too", () => {
    const text = "x\r\n".repeat(700_000);
    expect(crlfToLf(text, 0, text.length)).toBe("x\n".repeat(700_000));
  });
});
