import { describe, expect, it } from "vitest";
import { LineAssembler } from "../../src/terminal/line-assembler.js";
import { seededRandom as random } from "../helpers/seeded-random.js";

/** Feeds `chunks` and returns the complete lines, segments, marks and the unfinished last line. */
function assemble(chunks: string[], markPrefix?: string) {
  const assembler = new LineAssembler(markPrefix);
  const lines: string[] = [];
  const segments: string[] = [];
  const marks: string[] = [];
  const sink = {
    line: (text: string) => lines.push(text),
    segment: (text: string) => segments.push(text),
    mark: (body: string) => marks.push(body),
  };
  for (const chunk of chunks) assembler.push(chunk, sink);
  return { lines, segments, marks, partial: assembler.partialLine, assembler, sink };
}

describe("LineAssembler", () => {
  it("splits plain text into lines, \\r\\n and \\n alike", () => {
    expect(assemble(["a\r\nb\nc\r\n"]).lines).toEqual(["a", "b", "c"]);
  });

  it("keeps the unfinished last line until its newline arrives", () => {
    const { lines, partial } = assemble(["hello wo"]);
    expect(lines).toEqual([]);
    expect(partial).toBe("hello wo");
    expect(assemble(["hello wo", "rld\r\nnext"]).lines).toEqual(["hello world"]);
  });

  it("joins a line split over many chunks, one character at a time", () => {
    const text = "first line\r\nsecond line\r\n";
    expect(assemble([...text]).lines).toEqual(["first line", "second line"]);
  });

  it("\\r\\n split between chunks is one line ending", () => {
    expect(assemble(["a\r", "\nb\r\n"]).lines).toEqual(["a", "b"]);
  });

  it("a chunk cut between CR and LF stays on the plain path, and a CR at a chunk's end still returns the cursor", () => {
    const assembler = new LineAssembler();
    const lines: string[] = [];
    const sink = { line: (text: string) => lines.push(text), segment: () => {}, mark: () => {} };
    assembler.push("1\r\n2\r\n3\r", sink);
    expect(assembler.lastPushPlain).toBe(true);
    expect(assembler.partialLine).toBe("3");
    assembler.push("\n4\r", sink);
    expect(assembler.lastPushPlain).toBe(true);
    expect(lines).toEqual(["1", "2", "3"]);
    assembler.push("X\r\n", sink); // the held CR goes back in front: X overwrites 4
    expect(lines).toEqual(["1", "2", "3", "X"]);
    expect(assemble(["progress 10%\r", "progress 20%\r", "done\r\n"]).lines).toEqual(["doneress 20%"]);
    expect(assemble(["one\r", "\r\n"]).lines).toEqual(["one"]);
  });

  it("removes colour and other CSI sequences", () => {
    expect(assemble(["\x1b[1;31mred\x1b[0m and \x1b[38;5;208mmore\x1b[m\r\n"]).lines).toEqual(["red and more"]);
  });

  it("an escape sequence cut between chunks is still removed", () => {
    expect(assemble(["x\x1b", "[3", "2my\r\n"]).lines).toEqual(["xy"]);
    expect(assemble(["x\x1b]0;tit", "le\x07y\r\n"]).lines).toEqual(["xy"]);
  });

  it("removes OSC titles (BEL and ST terminated) and hyperlinks, keeping their text", () => {
    expect(assemble(["\x1b]0;window title\x07A\x1b]2;t\x1b\\B\r\n"]).lines).toEqual(["AB"]);
    expect(assemble(["\x1b]8;;https://example.com\x07link\x1b]8;;\x07\r\n"]).lines).toEqual(["link"]);
  });

  it("collapses carriage-return redraws to the final screen content", () => {
    expect(assemble(["10%\r50%\r100%\r\n"]).lines).toEqual(["100%"]);
    expect(assemble(["abcdef\rXY\r\n"]).lines).toEqual(["XYcdef"]);
  });

  it("a progress bar redrawn across chunks keeps its final state", () => {
    const chunks = ["[#   ] 25%", "\r[##  ] 50%", "\r[### ] 75%", "\r[####] 100%", "\r\ndone\r\n"];
    expect(assemble(chunks).lines).toEqual(["[####] 100%", "done"]);
  });

  it("erase-in-line after a carriage return clears the old text", () => {
    expect(assemble(["long old text\r\x1b[Knew\r\n"]).lines).toEqual(["new"]);
    expect(assemble(["long old text\r\x1b[2Knew\r\n"]).lines).toEqual(["new"]);
  });

  it("backspace moves back and the next character overwrites", () => {
    expect(assemble(["abc\b\bXY\r\n"]).lines).toEqual(["aXY"]);
  });

  it("cursor movements within the line are honoured", () => {
    expect(assemble(["abcdef\x1b[3DXY\r\n"]).lines).toEqual(["abcXYf"]);
    expect(assemble(["abcdef\x1b[2GZ\r\n"]).lines).toEqual(["aZcdef"]);
    expect(assemble(["ab\x1b[2Ccd\r\n"]).lines).toEqual(["ab  cd"]);
  });

  it("deletes characters (CSI P) as a terminal does", () => {
    expect(assemble(["abcdef\r\x1b[2P\r\n"]).lines).toEqual(["cdef"]);
  });

  it("drops BEL and other invisible control characters", () => {
    expect(assemble(["a\x07b\x00c\x0fd\r\n"]).lines).toEqual(["abcd"]);
  });

  it("keeps tabs", () => {
    expect(assemble(["a\tb\r\n"]).lines).toEqual(["a\tb"]);
  });

  it("hands OSC bodies with the mark prefix to sink.mark, in stream order, and shows nothing of them", () => {
    const { lines, marks } = assemble(
      ["out\x1b]6973;s3cret;D;0;/tmp\x07put\r\n\x1b]6973;other;B\x07\x1b]6973;s3cret;B\x07"],
      "6973;s3cret;",
    );
    expect(lines).toEqual(["output"]);
    expect(marks).toEqual(["6973;s3cret;D;0;/tmp", "6973;s3cret;B"]);
  });

  it("a mark cut between chunks is delivered once, whole", () => {
    const { marks } = assemble(["\x1b]6973;k;", "C\x07"], "6973;k;");
    expect(marks).toEqual(["6973;k;C"]);
  });

  it("OSC strings end at their own BEL or ST: an ESC that is not ST aborts one (its text shown), a later BEL does not end it", () => {
    // Aborted by CSI: the body is shown, the CSI applied; the BEL after it is a plain BEL (shows nothing).
    expect(assemble(["a\x1b]0;tit\x1b[31mle\x07b\r\n"]).lines).toEqual(["a0;titleb"]);
    // ST then BEL-terminated strings back to back, marks among them, one chunk.
    const { lines, marks } = assemble(["\x1b]6973;k;C\x1b\\x\x1b]0;t\x07y\x1b]6973;k;D;0;/tmp\x07z\x1b]6973;k;B\x1b\\\r\n"], "6973;k;");
    expect(lines).toEqual(["xyz"]);
    expect(marks).toEqual(["6973;k;C", "6973;k;D;0;/tmp", "6973;k;B"]);
    // ESC as the last character: the string is cut between reads and finished by the next one.
    const cut = assemble(["\x1b]6973;k;B\x1b", "\\done\r\n"], "6973;k;");
    expect(cut.marks).toEqual(["6973;k;B"]);
    expect(cut.lines).toEqual(["done"]);
  });

  it("many OSC strings in a long chunk are each found once (no terminator search past the next ESC)", () => {
    const chunk = Array.from({ length: 2_000 }, (_, index) => `\x1b]6973;k;D;${index}\x1b\\${index % 10}`).join("") + "\r\n";
    const { lines, marks } = assemble([chunk], "6973;k;");
    expect(marks).toHaveLength(2_000);
    expect(marks[1_999]).toBe("6973;k;D;1999");
    expect(lines).toEqual(["0123456789".repeat(200)]);
  });

  it("a very long line without newline is passed on in segments, bounded", () => {
    const { lines, segments, partial } = assemble(["x".repeat(200_000)]);
    expect(lines).toEqual([]);
    expect(segments.join("") + partial).toBe("x".repeat(200_000));
    expect(partial.length).toBeLessThan(200_000);
  });

  it("an unterminated OSC does not swallow the rest of the output forever", () => {
    const { lines } = assemble(["\x1b]0;never terminated", "y".repeat(20_000), "\r\nvisible\r\n"]);
    expect(lines.at(-1)).toBe("visible");
  });

  it("flushPartial hands the unfinished line over once and forgets it", () => {
    const { assembler, sink, segments } = assemble(["prompt> "]);
    assembler.flushPartial(sink);
    expect(segments).toEqual(["prompt> "]);
    expect(assembler.partialLine).toBe("");
  });

  it("multi-byte characters (already decoded) pass through intact", () => {
    expect(assemble(["é€", "😀\r", "\n"]).lines).toEqual(["é€😀"]);
  });
  it("bash's prompt and echo (bracketed-paste modes, a CR at a line's start) take the plain path for lines, not for a screen", () => {
    const assembler = new LineAssembler();
    const lines: string[] = [];
    const sink = { line: (text: string) => lines.push(text), segment: () => {}, mark: () => {} };
    for (const chunk of ["\x1b[?2004h$ ", "\r\n\x1b[?2004l\r", "\x1b[?2004h", "$ ", "echo hi\r\n\x1b[?2004l\rhi\r\n\x1b[?2004h$ "]) {
      assembler.push(chunk, sink);
      expect(assembler.lastPushPlain).toBe(!chunk.includes("\x1b")); // a screen must still see the mode changes
    }
    expect(lines).toEqual(["$ ", "$ echo hi", "hi"]);
    expect(assembler.partialLine).toBe("$ ");
    // A CR that is not at a line's start still returns the cursor: the next text overwrites.
    expect(assemble(["abc\x1b[?25l\rX\r\n"]).lines).toEqual(["Xbc"]);
    expect(assemble(["abc\r", "\x1b[?2004hX\r\n"]).lines).toEqual(["Xbc"]);
  });

  it("lines are the same however the text is cut into chunks (the plain and the per-character paths agree)", () => {
    const tokens = [
      "$ ",
      "\x1b[?2004h",
      "\x1b[?2004l",
      "\x1b[?1;25h",
      "\r",
      "\n",
      "\r\n",
      "echo hi",
      "ab",
      "\x1b[1;31m",
      "\x08",
      "\x1b[K",
      "\t",
      "\x07",
    ];
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const text = Array.from({ length: 30 }, () => tokens[Math.floor(next() * tokens.length)]).join("");
      const whole = assemble([text]);
      const cuts: string[] = [];
      for (let at = 0; at < text.length;) {
        const size = 1 + Math.floor(next() * 8);
        cuts.push(text.slice(at, at + size));
        at += size;
      }
      const cut = assemble(cuts);
      const perChar = assemble([...text]);
      expect({ seed, lines: cut.lines, partial: cut.partial }).toEqual({ seed, lines: whole.lines, partial: whole.partial });
      expect({ seed, lines: perChar.lines, partial: perChar.partial }).toEqual({ seed, lines: whole.lines, partial: whole.partial });
    }
  });

  it("a chunk holding whole marks gives the same lines, marks and order as the per-character path, the sink acting on the marks as a session does", () => {
    const prefix = "6973;k;";
    const tokens = [
      "$ ",
      "echo hi",
      "\r",
      "\n",
      "\r\n",
      "\x1b[?2004h",
      "\x1b[?2004l",
      "\x1b[1;31m",
      "\x1b[K",
      "\x08",
      "\x1b]6973;k;C\x07",
      "\x1b]6973;k;D;0\x07",
      "\x1b]6973;k;W;/tmp\x1b\\",
      "\x1b]0;title\x07",
      "\x1b]0;cut",
      "\x1b]6973;k;B",
      "\x1b[12",
      "\x1b",
    ];
    /** Every event in order; a start mark drops the unfinished line, a status mark flushes it (as the session's pipeline does). */
    const run = (chunks: string[]) => {
      const assembler = new LineAssembler(prefix);
      const events: string[] = [];
      const sink = {
        line: (text: string) => events.push(`line ${text}`),
        segment: (text: string) => events.push(`segment ${text}`),
        mark: (body: string) => {
          events.push(`mark ${body}`);
          if (body.endsWith(";C")) assembler.discardPartial();
          else if (body.includes(";D;")) assembler.flushPartial(sink);
        },
      };
      for (const chunk of chunks) assembler.push(chunk, sink);
      return { events, partial: assembler.partialLine };
    };
    // The shape of a shell-integration cell: echo, start mark, output, status mark, prompt.
    expect(run(["echo hi\r\n\x1b[?2004l\r\x1b]6973;k;C\x07hi\r\n\x1b[?2004h\x1b]6973;k;D;0\x07bash-5.2# "])).toEqual({
      events: ["line echo hi", "mark 6973;k;C", "line hi", "mark 6973;k;D;0"],
      partial: "bash-5.2# ",
    });
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const text = Array.from({ length: 24 }, () => tokens[Math.floor(next() * tokens.length)]).join("");
      const whole = run([text]);
      expect({ seed, ...run([...text]) }).toEqual({ seed, ...whole });
    }
  });
});
