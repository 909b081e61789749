import { describe, expect, it } from "vitest";
import { crlfToLf, isCrlfOnly, scanPlainChunk } from "../../src/terminal/crlf.js";
import { seededRandom } from "../helpers/seeded-random.js";

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

  it("parts of a chunk found plain come from the scan, and give what replaceAll gives", () => {
    const chunk = Array.from({ length: 500 }, (_, index) => `${index}\r\n`).join("") + "tail";
    expect(scanPlainChunk(chunk)).toBe(true);
    expect(isCrlfOnly(chunk)).toBe(true);
    for (const [from, to] of [
      [0, chunk.length],
      [chunk.indexOf("\n") + 1, chunk.lastIndexOf("\n") + 1],
      [3, chunk.lastIndexOf("\n", chunk.length - 10) + 1],
      [0, 3],
    ] as const) {
      expect(crlfToLf(chunk, from, to)).toBe(chunk.slice(from, to).replaceAll("\r\n", "\n"));
    }
    // A CR held at the very end, a chunk starting with the LF of a CR held before it.
    const held = "1\r\n2\r\n3\r";
    expect(scanPlainChunk(held)).toBe(true);
    expect(crlfToLf(held, 0, 6)).toBe("1\n2\n");
    expect(scanPlainChunk("\n4\r\n5\r\n", true)).toBe(true);
    expect(isCrlfOnly("\n4\r\n5\r\n")).toBe(true);
  });
});

describe("scanPlainChunk", () => {
  it("says what the line assembler's plain path takes, ASCII or not", () => {
    const plain = ["a\r\nb\r\n", "tab\there\r\n", "bare\nLF\n", "CR at the end\r", "é€ wide\r\n", ""];
    const notPlain = ["a\rb\r\n", "\x1b[31mred", "bell\x07", "del\x7f", "c1 \x85", "cr\r\r\n", "é\rx", "nul\x00"];
    for (const text of plain) expect(scanPlainChunk(text), JSON.stringify(text)).toBe(true);
    for (const text of notPlain) expect(scanPlainChunk(text), JSON.stringify(text)).toBe(false);
  });

  it("knows when an LF has no CR before it, and forgets a chunk once another is scanned", () => {
    expect(scanPlainChunk("a\r\nb\nc\r\n")).toBe(true);
    expect(isCrlfOnly("a\r\nb\nc\r\n")).toBe(false);
    expect(scanPlainChunk("\nd\r\n")).toBe(true);
    expect(isCrlfOnly("\nd\r\n")).toBe(false);
    const first = "x\r\n".repeat(100);
    expect(scanPlainChunk(first)).toBe(true);
    expect(scanPlainChunk("\x1b[0m")).toBe(false);
    expect(isCrlfOnly(first)).toBe(false);
    expect(crlfToLf(first, 3, 300)).toBe(first.slice(3, 300).replaceAll("\r\n", "\n"));
  });
});

describe("scanPlainChunk on long chunks (scanned byte by byte)", () => {
  // What the scan must say, by regular expressions: no control character but TAB, LF and CR, a CR
  // only before an LF or at the very end; and the clean text is the chunk with CR LF as LF.
  const notPlain = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n|$)/;
  const pieces = ["1234567", "a", "bc", "\r\n", "\r\n", "\n", "\t", " ", "\r", "\x1b[0m", "\x7f", "\x01", "\x1f", "\x0b", "~"];

  it("says what a regular expression says, and converts parts as replaceAll does, at every alignment", () => {
    const random = seededRandom(11);
    for (let round = 0; round < 3_000; round++) {
      // Mostly printable text and CR LF, sometimes one of the rest, at any offset from the start.
      let text = "x".repeat(Math.floor(random() * 4));
      while (text.length < 256 + Math.floor(random() * 200)) {
        text += pieces[random() < 0.97 ? Math.floor(random() * 5) : Math.floor(random() * pieces.length)];
      }
      const afterCr = random() < 0.2;
      const body = afterCr && text.startsWith("\n") ? text.slice(1) : text;
      const plain = !notPlain.test(text);
      expect(scanPlainChunk(text, afterCr), JSON.stringify(text)).toBe(plain);
      if (!plain) continue;
      expect(isCrlfOnly(text), JSON.stringify(text)).toBe(!/(?:^|[^\r])\n/.test(body));
      const end = text.endsWith("\r") ? text.length - 1 : text.length;
      for (const [from, to] of [
        [0, end],
        [text.indexOf("\n") + 1, text.lastIndexOf("\n") + 1],
      ] as const) {
        expect(crlfToLf(text, from, to), JSON.stringify(text)).toBe(text.slice(from, to).replaceAll("\r\n", "\n"));
      }
    }
  });
});
