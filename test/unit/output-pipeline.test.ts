import { describe, expect, it } from "vitest";
import type { CellControl, CellResult, CellStatus } from "../../src/cell.js";
import type { DetectorInput, FeedResult, FrameDetector, FrameEnd } from "../../src/detect/types.js";
import { frameEnd, OUTPUT_START, outputEnd } from "../../src/detect/verdict.js";
import { FrameCollector } from "../../src/frame.js";
import { OutputPipeline } from "../../src/session/output-pipeline.js";

// The output pipeline alone, driven with strings: no PTY, no program. What a
// session makes of real programs' output is proven on real PTYs (test/detectors,
// test/programs, test/session); these pin the pipeline's own rules.

/** A cell's live consumer that keeps what it is given. */
function liveCell(): CellControl & { pushed: string[] } {
  const pushed: string[] = [];
  return {
    pushed,
    push: (chunk: string) => pushed.push(chunk),
    setStatus: (_status: CellStatus) => undefined,
    finish: (_result: CellResult) => undefined,
    fail: (_error: unknown) => undefined,
  };
}

/** A pipeline with a host that plays the session: `cell()` opens a cell's frame, the detector's end closes it. */
function harness(detector: FrameDetector) {
  const ends: FrameEnd[] = [];
  const failures: unknown[] = [];
  const raw: string[] = [];
  let frame: FrameCollector | undefined;
  let control: ReturnType<typeof liveCell> | undefined;
  let outputs: string[] = [];
  const pipeline = new OutputPipeline(
    detector,
    { cols: 40, rows: 5 },
    {
      frame: () => frame,
      cellControl: () => control,
      endFrame: (end) => {
        ends.push(end);
        pipeline.frameEnded();
        if (frame === undefined || control === undefined) return;
        pipeline.closeFrame(frame, control, end.note);
        outputs.push(frame.finish(end.dropLines).output);
        frame = undefined;
        pipeline.endCell();
      },
      detectorFailed: (error) => failures.push(error),
      raw: (text) => raw.push(text),
      answer: () => undefined,
      isRaw: () => Promise.resolve(true),
    },
  );
  return {
    pipeline,
    ends,
    failures,
    raw,
    get outputs() {
      return outputs;
    },
    get frame() {
      return frame;
    },
    /** Opens a cell's frame as a session does when it types `code`; returns its live consumer. */
    cell(code: string) {
      frame = new FrameCollector(1 << 20);
      control = liveCell();
      pipeline.startCell(code);
      return control;
    },
    reset() {
      outputs = [];
    },
  };
}

/** A prompt detector in miniature: a `$ ` unfinished line ends the frame with exit code 0. */
function promptDetector(extra: Partial<FrameDetector> = {}): FrameDetector & { fed: DetectorInput[] } {
  const fed: DetectorInput[] = [];
  return {
    name: "stub-prompt",
    fed,
    feed(input: DetectorInput): FeedResult {
      fed.push(input);
      if ("line" in input && input.partial && input.line === "$ ") return frameEnd({ exitCode: 0 });
      return undefined;
    },
    ...extra,
  };
}

const MARK = "\x1b]999;k;";
/** A mark-based detector in miniature: S starts the output, E ends it, P is the prompt (the frame's end). */
function markDetector(): FrameDetector {
  return {
    name: "stub-marks",
    markPrefix: "999;k;",
    removesEcho: true,
    feed(input: DetectorInput): FeedResult {
      if (!("mark" in input)) return undefined;
      const tag = input.mark.slice("999;k;".length);
      if (tag === "S") return OUTPUT_START;
      if (tag === "E") return outputEnd();
      if (tag.startsWith("P")) return frameEnd({ exitCode: Number(tag.slice(1)) });
      return undefined;
    },
  };
}

describe("OutputPipeline: a cell's output", () => {
  it("removes the cell's echo, keeps its output lines, and ends the frame at the prompt", () => {
    const h = harness(promptDetector());
    const live = h.cell("echo hi");
    h.pipeline.push("$ echo hi\r\nhi\r\n");
    h.pipeline.push("$ ");
    expect(h.ends).toEqual([{ kind: "end", exitCode: 0 }]);
    expect(h.outputs).toEqual(["hi"]);
    expect(live.pushed.join("")).toBe("hi\n");
  });

  it("puts the cell's input line and its output in the transcript, not the prompt", () => {
    const h = harness(promptDetector());
    h.cell("echo one");
    h.pipeline.push("$ echo one\r\none\r\n$ ");
    h.cell("echo two");
    h.pipeline.push("echo two\r\ntwo\r\n$ ");
    expect(h.pipeline.history(10)).toBe("echo one\none\necho two\ntwo");
  });

  it("gives the same clean output when the text comes one character at a time", () => {
    const h = harness(promptDetector());
    h.cell("printf 'a\\nb\\n'");
    for (const char of "printf 'a\\nb\\n'\r\na\r\nb\r\n$ ") h.pipeline.push(char);
    expect(h.outputs).toEqual(["a\nb"]);
  });

  it("collapses a progress bar's carriage-return redraws and strips colour", () => {
    const h = harness(promptDetector());
    h.cell("make");
    h.pipeline.push("make\r\n\x1b[32m10%\x1b[0m\r50%\r100%\r\n$ ");
    expect(h.outputs).toEqual(["100%"]);
  });

  it("feeds the detector every chunk, complete line and new unfinished line", () => {
    const detector = promptDetector();
    const h = harness(detector);
    h.cell("ls");
    h.pipeline.push("ls\r\nfile\r\n");
    h.pipeline.push("$ ");
    expect(detector.fed).toEqual([
      { raw: "ls\r\nfile\r\n" },
      { line: "ls", partial: false },
      { line: "file", partial: false },
      { raw: "$ " },
      { line: "$ ", partial: true },
    ]);
  });

  it("takes long output in blocks when the detector needs only its last lines, with the same result", () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `line ${i}`);
    const blocky = harness(promptDetector({ linesNeeded: () => 2 }));
    const lineByLine = harness(promptDetector());
    for (const h of [blocky, lineByLine]) {
      h.cell("seq");
      h.pipeline.push(`seq\r\n${lines.join("\r\n")}\r\n`);
      h.pipeline.push("$ ");
    }
    expect(blocky.outputs).toEqual([lines.join("\n")]);
    expect(lineByLine.outputs).toEqual(blocky.outputs);
  });

  it("flushPartial makes the unfinished line output (an interrupted cell's question)", () => {
    const h = harness(promptDetector());
    h.cell("read -p 'Name? ' n");
    h.pipeline.push("read -p 'Name? ' n\r\nName? ");
    expect(h.pipeline.partialLine).toBe("Name? ");
    h.pipeline.flushPartial();
    expect(h.frame?.peek()).toBe("Name? ");
    expect(h.pipeline.partialLine).toBe("");
  });
});

describe("OutputPipeline: mark-based detectors", () => {
  it("passes nothing before the output starts, and drops the prompt after it ends", () => {
    const h = harness(markDetector());
    const live = h.cell("ls");
    h.pipeline.push(`ls\r\n${MARK}S\x07a\r\nb\r\n${MARK}E\x07$ ${MARK}P0\x07`);
    expect(h.ends).toEqual([{ kind: "end", exitCode: 0 }]);
    expect(h.outputs).toEqual(["a\nb"]);
    expect(live.pushed.join("")).toBe("a\nb\n");
  });

  it("keeps what was collected when the output never started (a syntax error: no command ran)", () => {
    const h = harness(markDetector());
    const live = h.cell("if");
    h.pipeline.push(`bash: syntax error near unexpected token\r\n${MARK}P2\x07`);
    expect(h.outputs).toEqual(["bash: syntax error near unexpected token"]);
    expect(live.pushed.join("")).toBe("bash: syntax error near unexpected token");
    expect(h.pipeline.history(5)).toBe("if\nbash: syntax error near unexpected token");
  });

  it("outside cells: a typed command (read from its echo, without the prompt) and its output reach the transcript, the prompt does not", () => {
    const h = harness(markDetector());
    h.pipeline.push("$ ");
    h.pipeline.frameEnded(); // the program is at its prompt: what follows is prompt and echo
    h.pipeline.push("date\r\n");
    h.pipeline.push(`${MARK}S\x07Mon Nov 23\r\n${MARK}E\x07$ `);
    expect(h.pipeline.history(10)).toBe("date\nMon Nov 23");
  });
});

describe("OutputPipeline: the detector's failures and late answers", () => {
  it("reports a detector that throws and goes on with the output", () => {
    const boom = new Error("boom");
    const h = harness({
      name: "throws",
      feed: (input) => {
        if ("raw" in input) throw boom;
        return "line" in input && input.partial && input.line === "$ " ? frameEnd() : undefined;
      },
    });
    h.cell("x");
    h.pipeline.push("x\r\nout\r\n$ ");
    expect(h.failures).toEqual([boom]);
    expect(h.outputs).toEqual(["out"]);
  });

  it("takes a Promise's frame end while the same frame is open, and ignores it after", async () => {
    let answer: (result: FeedResult) => void = () => undefined;
    const h = harness({
      name: "late",
      feed: (input) => ("line" in input && input.line === "done" ? new Promise<FeedResult>((resolve) => (answer = resolve)) : undefined),
    });
    h.cell("a");
    h.pipeline.push("a\r\ndone\r\n");
    const first = answer;
    first({ exitCode: 3 });
    await Promise.resolve();
    await Promise.resolve();
    expect(h.ends).toEqual([{ kind: "end", exitCode: 3 }]);
    h.cell("b");
    h.pipeline.push("b\r\ndone\r\n");
    first({ exitCode: 4 }); // the first frame's answer again: that frame is gone
    const rejecting = answer;
    rejecting(undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.ends).toHaveLength(1);
  });

  it("reports a Promise that rejects", async () => {
    const h = harness({ name: "rejects", feed: (input) => ("raw" in input ? Promise.reject(new Error("late boom")) : undefined) });
    h.pipeline.push("x");
    await new Promise((resolve) => setImmediate(resolve));
    expect(String(h.failures[0])).toContain("late boom");
  });
});

describe("OutputPipeline: consumers", () => {
  it("hands watchers every complete line and every new unfinished line, until they stop", () => {
    const h = harness(promptDetector());
    const seen: Array<[string | undefined, string]> = [];
    const stop = h.pipeline.watchLines((line, partial) => seen.push([line, partial]));
    h.pipeline.push("one\r\ntw");
    h.pipeline.push("o\r\n");
    stop();
    h.pipeline.push("three\r\n");
    expect(seen).toEqual([
      ["one", ""],
      [undefined, "tw"],
      ["two", ""],
    ]);
  });

  it("streams raw text as it came and the clean transcript, and ends them", async () => {
    const h = harness(promptDetector());
    const raw = h.pipeline.stream(true, true);
    const clean = h.pipeline.stream(false, true);
    h.cell("echo hi");
    h.pipeline.push("echo hi\r\n\x1b[1mhi\x1b[0m\r\n$ ");
    h.pipeline.endStreams();
    const all = async (stream: AsyncIterable<string>) => {
      let text = "";
      for await (const chunk of stream) text += chunk;
      return text;
    };
    expect(await all(raw)).toBe("echo hi\r\n\x1b[1mhi\x1b[0m\r\n$ ");
    expect(await all(clean)).toBe("echo hi\nhi\n");
    expect(h.raw).toEqual(["echo hi\r\n\x1b[1mhi\x1b[0m\r\n$ "]);
  });

  it("a stream opened after the end is already over", async () => {
    const stream = harness(promptDetector()).pipeline.stream(false, false);
    expect((await stream.next()).done).toBe(true);
  });

  it("puts a recorded input line on a line of its own", () => {
    const h = harness(promptDetector());
    h.pipeline.frameEnded();
    h.pipeline.push("no newline yet");
    h.pipeline.push("\r\n");
    h.pipeline.recordInput("typed by a person");
    expect(h.pipeline.history(5)).toBe("no newline yet\ntyped by a person");
  });

  it("drops the prompt a program leaves when it exits between cells, keeps a cell's unfinished line", () => {
    const between = harness(promptDetector());
    between.pipeline.push("bye\r\n$ ");
    between.pipeline.programExited(false);
    expect(between.pipeline.partialLine).toBe("");
    expect(between.pipeline.history(5)).toBe("bye");

    const inCell = harness(promptDetector());
    inCell.cell("cat");
    inCell.pipeline.push("cat\r\nhalf a line");
    inCell.pipeline.programExited(true);
    expect(inCell.frame?.peek()).toBe("half a line");
  });
});

describe("OutputPipeline: the screen", () => {
  it("is made on first use and shows what was printed before it", () => {
    const h = harness(promptDetector());
    h.pipeline.push("hello\r\nworld");
    expect(h.pipeline.lastScreenText()).toBe("");
    expect(h.pipeline.screen().text().split("\n").slice(0, 2)).toEqual(["hello", "world"]);
    expect(h.pipeline.lastScreenText().split("\n")).toHaveLength(5);
  });

  it("fast-forwards a long burst and keeps the last rows right", () => {
    const h = harness(promptDetector());
    const lines = Array.from({ length: 20_000 }, (_, i) => `row ${i}`);
    h.pipeline.push(`${lines.join("\r\n")}\r\n`);
    expect(h.pipeline.screen().text().split("\n").slice(0, 4)).toEqual(lines.slice(-4));
  });

  it("shows nothing of the detector's marks, whole or cut between reads, and the raw text keeps them", () => {
    const marked = harness(markDetector());
    const plain = harness(markDetector());
    const chunks = [`$ ls${MARK}S\x07\r\n\x1b[1mbold\x1b[0m\r\n${MARK}E\x07${MARK}P0\x07$ `, `${MARK}S`, `\x07two\r\n${MARK}E\x1b\\$ x`];
    for (const chunk of chunks) marked.pipeline.push(chunk);
    plain.pipeline.push(chunks.join("").replaceAll(/\x1b\]999;k;[^\x07\x1b]*(\x07|\x1b\\)/g, ""));
    expect(marked.pipeline.screen().text()).toBe(plain.pipeline.screen().text());
    expect(marked.pipeline.screen().styledText()).toBe(plain.pipeline.screen().styledText());
    expect(marked.pipeline.screen().text().split("\n").slice(0, 4)).toEqual(["$ ls", "bold", "$ two", "$ x"]);
    expect(marked.raw.join("")).toBe(chunks.join(""));
  });

  it("resizes after taking in what was drawn at the old size", () => {
    const h = harness(promptDetector());
    h.pipeline.push("x".repeat(30));
    h.pipeline.resize(20, 5);
    expect(h.pipeline.screen().text().split("\n")).toHaveLength(5);
  });
});
