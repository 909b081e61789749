import { describe, expect, it } from "vitest";
import { FrameCollector } from "../../src/frame.js";
import { CappedText } from "../../src/internal/capped-text.js";
import { RawStore } from "../../src/internal/raw-store.js";
import { LineAssembler } from "../../src/terminal/line-assembler.js";
import { Transcript } from "../../src/terminal/transcript.js";

const marker = (bytes: number) => `[… ${bytes} bytes omitted …]`;
const numbered = (from: number, to: number, eol = "\n") =>
  Array.from({ length: to - from + 1 }, (_, index) => `${from + index}${eol}`).join("");
const built = (raw: string | (() => string)) => (typeof raw === "string" ? raw : raw());

describe("CappedText: a long head kept as bytes", () => {
  it("gives the same text as the pieces appended, ASCII and multi-byte alike", () => {
    for (const unit of ["line of text\n", "é€😀 wide\n"]) {
      const capped = new CappedText(64 << 20);
      let whole = "";
      for (let index = 0; index < 40_000; index++) {
        const piece = `${index} ${unit}`;
        capped.append(piece);
        whole += piece;
      }
      expect(capped.peek()).toBe(whole);
      expect(capped.tail(30)).toBe(whole.slice(-30));
      expect(capped.finish(marker)).toEqual({ text: whole, truncated: false, omittedBytes: 0 });
      expect(capped.totalBytes).toBe(Buffer.byteLength(whole));
    }
  });

  it("cut over its budget after the head went to bytes: the same result as appending it whole", () => {
    const text = numbered(1, 60_000);
    const pieces = new CappedText(300_000);
    for (let index = 0; index < text.length; index += 997) pieces.append(text.slice(index, index + 997));
    const whole = new CappedText(300_000);
    whole.append(text);
    expect(pieces.finish(marker)).toEqual(whole.finish(marker));
    expect(pieces.finish(marker).truncated).toBe(true);
  });
});

describe("RawStore: raw text not held twice", () => {
  it("rebuilds mirrored parts exactly, around the parts kept as text", () => {
    let clean = "";
    const store = new RawStore(64 << 20, () => clean);
    const chunks = [`\x1b[1mhead\x1b[0m\r\n`, numbered(1, 500, "\r\n"), numbered(501, 1000, "\r\n"), "tail\r\n"];
    for (const chunk of chunks) {
      store.append(chunk);
      if (chunk.includes("\x1b")) {
        clean += "head\n";
        continue;
      }
      const text = chunk.replaceAll("\r\n", "\n");
      store.mirror(chunk, 0, chunk.length, clean.length, clean.length + text.length);
      clean += text;
    }
    const raw = store.finish([clean], marker);
    expect(typeof raw.text).toBe("function");
    expect(built(raw.text)).toBe(chunks.join(""));
  });

  it("keeps a part with a bare LF as text (a range would give it back as CR LF)", () => {
    const clean = numbered(1, 300);
    const store = new RawStore(1 << 20, () => clean);
    const chunk = numbered(1, 300); // LF only
    store.append(chunk);
    store.mirror(chunk, 0, chunk.length, 0, clean.length);
    const raw = store.finish([clean], marker);
    expect(typeof raw.text).toBe("string");
    expect(built(raw.text)).toBe(chunk);
  });

  it("materialize() turns ranges into text before the clean output goes away", () => {
    let clean = "";
    const store = new RawStore(1 << 20, () => clean);
    const chunk = numbered(1, 400, "\r\n");
    store.append(chunk);
    clean = chunk.replaceAll("\r\n", "\n");
    store.mirror(chunk, 0, chunk.length, 0, clean.length);
    store.append("next\r\n");
    store.materialize(true);
    clean = "";
    expect(built(store.finish(undefined, marker).text)).toBe(`${chunk}next\r\n`);
  });

  it("mirrored parts join into one range across the lines added between them, only when the raw text between is theirs", () => {
    // As the output pipeline feeds it: each chunk's first line and last lines one by one, the lines
    // between mirrored; a line is cut between chunks. In one chunk the line before the block is not
    // the raw text with CR LF (colour removed), so no range may join across it.
    const frame = new FrameCollector(64 << 20);
    const chunks: string[] = [];
    let line = 0;
    let carried = "";
    for (let index = 0; index < 40; index++) {
      const coloured = index === 17;
      const n = line;
      const first = coloured ? `\x1b[1m${n}\x1b[0m\r\n` : `${n}\r\n`;
      const body = numbered(n + 1, n + 100, "\r\n");
      const last = `${n + 101}\r\n`;
      const cut = `${n + 102}`;
      line = n + 103;
      const chunk = `${first}${body}${last}${cut.slice(0, 2)}`;
      chunks.push(chunk);
      frame.appendRaw(chunk);
      frame.add(`${carried}${n}\n`);
      frame.addMirrored(body.replaceAll("\r\n", "\n"), chunk, first.length, first.length + body.length, true);
      frame.add(`${last.slice(0, -2)}\n`);
      frame.flush();
      // The next chunk starts with the rest of the cut line.
      carried = cut.slice(0, 2);
      const rest = `${cut.slice(2)}\r\n`;
      chunks.push(rest);
      frame.appendRaw(rest);
      frame.add(`${carried}${cut.slice(2)}\n`);
      carried = "";
      frame.flush();
    }
    const result = frame.finish();
    expect(result.output.split("\n")).toHaveLength(line);
    expect(built(result.raw)).toBe(chunks.join(""));
  });

  it("over its cap: head and tail like CappedText given the same chunks", () => {
    let clean = "";
    const store = new RawStore(20_000, () => clean);
    const reference = new CappedText(20_000);
    for (let from = 1; from < 20_000; from += 500) {
      const chunk = numbered(from, from + 499, "\r\n");
      store.append(chunk);
      reference.append(chunk);
      const text = chunk.replaceAll("\r\n", "\n");
      store.mirror(chunk, 0, chunk.length, clean.length, clean.length + text.length);
      clean += text;
    }
    const raw = store.finish([clean], marker);
    const want = reference.finish(marker);
    expect(built(raw.text)).toBe(want.text);
    expect(raw.omittedBytes).toBe(want.omittedBytes);
  });
});

describe("LineAssembler.block: whole lines of plain text at once", () => {
  it("hands over whole lines after the first, and passes the rest line by line as before", () => {
    const assembler = new LineAssembler();
    const lines: string[] = [];
    const blocks: string[] = [];
    const sink = {
      line: (text: string) => lines.push(text),
      segment: () => {},
      mark: () => {},
      block: (text: string, from: number, to: number) => {
        const last = text.lastIndexOf("\n", to - 2) + 1;
        blocks.push(text.slice(from, last));
        return last;
      },
    };
    assembler.push("par", sink);
    assembler.push("tial\r\none\r\ntwo\r\nthree\r\nrest", sink);
    expect(lines).toEqual(["partial", "three"]);
    expect(blocks).toEqual(["one\r\ntwo\r\n"]);
    expect(assembler.partialLine).toBe("rest");
    expect(assembler.lastPushPlain).toBe(true);
    assembler.push("\x1b[1m\r\n", sink);
    expect(assembler.lastPushPlain).toBe(false);
  });
});

describe("Transcript kept as bytes", () => {
  it("keeps the last lines across the ring's wrap, multi-byte characters whole", () => {
    const transcript = new Transcript();
    for (let index = 0; index < 300_000; index++) transcript.append(`${index} é€😀\n`);
    expect(transcript.lastLines(2)).toBe("299998 é€😀\n299999 é€😀");
    const all = transcript.lastLines(1_000_000).split("\n");
    expect(all.length).toBeGreaterThan(50_000);
    expect(all.at(-1)).toBe("299999 é€😀");
    expect(
      all.slice(1).every((line, index, lines) => index === 0 || Number(line.split(" ")[0]) === Number(lines[index - 1]?.split(" ")[0]) + 1),
    ).toBe(true);
  });

  it("one text larger than it keeps leaves its end", () => {
    const transcript = new Transcript();
    transcript.append("first\n");
    transcript.append(numbered(1, 600_000));
    expect(transcript.lastLines(2)).toBe("599999\n600000");
    expect(transcript.lastLines(10_000_000)).not.toContain("first");
  });
});

describe("FrameCollector: a long output handed over without a copy", () => {
  const trimmed = (text: string, dropLines: number) => {
    let rest = text.endsWith("\n") ? text.slice(0, -1) : text;
    for (let dropped = 0; dropped < dropLines && rest !== ""; dropped++) rest = rest.slice(0, Math.max(0, rest.lastIndexOf("\n")));
    return rest;
  };

  it("gives the output and raw text exactly, final newline and dropped lines across the pieces it is held in", () => {
    // 10,485 lines of 100 bytes fill the 1 MB staging buffer but for 76 bytes: what follows starts a new piece.
    const line = (index: number) => `${String(index).padStart(98, "0")} \n`.slice(-100);
    for (const last of ["", "\n", "x", "x\n", "\n\n", "é€😀\ny\n"]) {
      for (const dropLines of [0, 1, 2, 3]) {
        const frame = new FrameCollector(64 << 20);
        let whole = "";
        for (let index = 0; index < 10_485; index++) {
          const text = line(index);
          frame.appendRaw(text.replace("\n", "\r\n"));
          frame.add(text);
          frame.flush();
          whole += text;
        }
        frame.appendRaw(last.replaceAll("\n", "\r\n"));
        frame.add(last);
        whole += last;
        const finished = frame.finish(dropLines);
        expect(finished.output).toBe(trimmed(whole, dropLines));
        expect(built(finished.raw)).toBe(whole.replaceAll("\n", "\r\n"));
        expect(finished.truncated).toBe(false);
      }
    }
  });

  it("a short output (one piece) loses its final newline and dropped lines as a long one does", () => {
    for (const text of ["", "\n", "hi", "hi\n", "a\nb\n", "a\nb", "\n\n", "é€😀\ny\n"]) {
      for (const dropLines of [0, 1, 2]) {
        const frame = new FrameCollector(1 << 20);
        frame.appendRaw(text.replaceAll("\n", "\r\n"));
        frame.add(text);
        const finished = frame.finish(dropLines);
        expect(finished.output, `${JSON.stringify(text)} less ${dropLines}`).toBe(trimmed(text, dropLines));
        expect(built(finished.raw)).toBe(text.replaceAll("\n", "\r\n"));
      }
    }
  });

  it("a multi-megabyte output of multi-byte text and its mirrored raw text come back exactly", () => {
    const frame = new FrameCollector(64 << 20);
    let whole = "";
    for (let index = 0; index < 10_000; index++) {
      const chunk = numbered(index * 30, index * 30 + 29, " é€😀\r\n");
      const clean = chunk.replaceAll("\r\n", "\n");
      frame.appendRaw(chunk);
      frame.addMirrored(clean, chunk, 0, chunk.length);
      frame.flush();
      whole += chunk;
    }
    const finished = frame.finish();
    expect(finished.output).toBe(whole.replaceAll("\r\n", "\n").slice(0, -1));
    expect(typeof finished.raw).toBe("function");
    expect(built(finished.raw)).toBe(whole);
  });
});
