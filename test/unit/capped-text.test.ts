import { describe, expect, it } from "vitest";
import { CappedText } from "../../src/internal/capped-text.js";

const marker = (bytes: number) => `[… ${bytes} bytes omitted …]`;

function numbered(from: number, to: number): string {
  let text = "";
  for (let n = from; n <= to; n++) text += `${n}\n`;
  return text;
}

describe("CappedText", () => {
  it("keeps everything under the budget, untruncated", () => {
    const capped = new CappedText(100);
    capped.append("hello\n");
    capped.append("world\n");
    expect(capped.finish(marker)).toEqual({ text: "hello\nworld\n", truncated: false, omittedBytes: 0 });
    expect(capped.totalBytes).toBe(12);
  });

  it("exactly at the budget is not truncated", () => {
    const capped = new CappedText(10);
    capped.append("0123456789");
    expect(capped.finish(marker).truncated).toBe(false);
  });

  it("over the budget keeps head and tail as whole lines with one marker line between", () => {
    const capped = new CappedText(200);
    const text = numbered(1, 5000);
    for (const line of text.match(/[^\n]*\n/g) ?? []) capped.append(line);
    const result = capped.finish(marker);
    expect(result.truncated).toBe(true);
    const lines = result.text.replace(/\n$/, "").split("\n");
    const at = lines.findIndex((line) => /^\[… \d+ bytes omitted …\]$/.test(line));
    expect(at).toBeGreaterThan(0);
    const head = lines.slice(0, at);
    const tail = lines.slice(at + 1);
    expect(head).toEqual(head.map((_, index) => String(index + 1)));
    expect(tail).toEqual(tail.map((_, index) => String(5000 - tail.length + 1 + index)));
    const kept = Buffer.byteLength(head.join("\n") + "\n") + Buffer.byteLength(tail.join("\n") + "\n");
    expect(kept).toBeLessThanOrEqual(200);
    expect(kept + result.omittedBytes).toBe(Buffer.byteLength(text));
    expect(lines[at]).toBe(marker(result.omittedBytes));
  });

  it("the same text appended in one piece or in many gives the same result", () => {
    const text = numbered(1, 3000);
    const whole = new CappedText(300);
    whole.append(text);
    const pieces = new CappedText(300);
    for (let index = 0; index < text.length; index += 7) pieces.append(text.slice(index, index + 7));
    expect(pieces.finish(marker)).toEqual(whole.finish(marker));
  });

  it("counts bytes, not characters, and never splits a multi-byte character", () => {
    const capped = new CappedText(64);
    const unit = "é€😀".repeat(4);
    const line = `${unit}\n`; // 37 bytes: longer than half the budget
    for (let index = 0; index < 50; index++) capped.append(line);
    const result = capped.finish(marker);
    expect(result.truncated).toBe(true);
    expect(result.text).not.toContain("\uFFFD");
    const [head = "", tail = ""] = result.text.replace(/\n$/, "").split(/\n?\[… \d+ bytes omitted …\]\n/);
    expect(unit.startsWith(head)).toBe(true);
    expect(unit.endsWith(tail)).toBe(true);
    expect(Buffer.byteLength(head) + Buffer.byteLength(tail)).toBeLessThanOrEqual(64);
    expect(capped.totalBytes).toBe(50 * Buffer.byteLength(line));
  });

  it("one append larger than the whole budget keeps its head", () => {
    const capped = new CappedText(100);
    capped.append(numbered(1, 1000));
    const result = capped.finish(marker);
    expect(result.truncated).toBe(true);
    expect(result.text.startsWith("1\n2\n3\n")).toBe(true);
    expect(result.text.endsWith("999\n1000\n")).toBe(true);
  });

  it("output without newlines is still cut to the budget", () => {
    const capped = new CappedText(100);
    capped.append("a".repeat(10_000));
    const result = capped.finish(marker);
    expect(result.truncated).toBe(true);
    const kept = result.text.replace(/\n?\[… \d+ bytes omitted …\]\n/, "");
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(100);
    expect(Buffer.byteLength(kept) + result.omittedBytes).toBe(10_000);
  });

  it("peek() and tail() show what is kept", () => {
    const capped = new CappedText(1_000);
    capped.append("abc\n");
    capped.append("def");
    expect(capped.peek()).toBe("abc\ndef");
    expect(capped.tail(3)).toBe("def");
  });

  it("memory stays bounded whatever is appended", () => {
    const capped = new CappedText(1_000);
    for (let index = 0; index < 100_000; index++) capped.append(`line ${index}\n`);
    expect(capped.peek().length).toBeLessThan(3_000);
  });
});
