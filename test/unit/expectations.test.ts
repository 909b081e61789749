import { afterEach, describe, expect, it, vi } from "vitest";
import type { FrameDetector } from "../../src/detect/types.js";
import { CellTimeoutError, SessionClosedError } from "../../src/errors.js";
import { expectOutput, expectScreen, type ExpectSource } from "../../src/session/expectations.js";
import { OutputPipeline } from "../../src/session/output-pipeline.js";

// Waiting for text, driven with strings through a real output pipeline (no
// PTY): the session's expect() on real programs is proven in test/session.

const quiet: FrameDetector = { name: "none", feed: () => undefined };

/** A source as a session makes it: its pipeline, a data signal after each push, and the program's end. */
function source() {
  const dataListeners = new Set<() => void>();
  const exitListeners = new Set<() => void>();
  const output = new OutputPipeline(
    quiet,
    { cols: 40, rows: 4 },
    {
      frame: () => undefined,
      cellControl: () => undefined,
      endFrame: () => undefined,
      detectorFailed: () => undefined,
      raw: () => undefined,
      answer: () => undefined,
      isRaw: () => Promise.resolve(true),
    },
  );
  const src: ExpectSource = {
    name: "unit",
    output,
    onData: (listener) => {
      dataListeners.add(listener);
      return () => dataListeners.delete(listener);
    },
    onExit: (listener) => {
      exitListeners.add(listener);
      return () => exitListeners.delete(listener);
    },
  };
  return {
    src,
    /** The program draws `text`, before any data listener hears of it. */
    draw: (text: string) => output.push(text),
    print(text: string) {
      output.push(text);
      for (const listener of dataListeners) listener();
    },
    exit() {
      for (const listener of [...exitListeners]) listener();
    },
    listeners: () => dataListeners.size + exitListeners.size,
  };
}

const limits = (timeoutMs = 1_000, signal?: AbortSignal) => ({ timeoutMs, signal });

afterEach(() => {
  vi.useRealTimers();
});

describe("expectOutput", () => {
  it("matches text that arrives after the call, with groups and what came before it on the line", async () => {
    const s = source();
    const waiting = expectOutput(s.src, /version (\d+)\.(\d+)/, limits());
    s.print("tool version 3.14\r\n");
    expect(await waiting).toMatchObject({ match: "version 3.14", groups: ["3", "14"] });
    expect(s.listeners()).toBe(0);
  });

  it("does not match text printed before the call; a prompt printed again after it does", async () => {
    const s = source();
    s.print("done\r\n>>> ");
    const waiting = expectOutput(s.src, ">>> ", limits());
    let settled = false;
    void waiting.then(() => (settled = true));
    s.print("done\r\n");
    await Promise.resolve();
    expect(settled).toBe(false);
    s.print(">>> ");
    expect((await waiting).match).toBe(">>> ");
  });

  it("rejects at its deadline with what came instead, and stops listening", async () => {
    vi.useFakeTimers();
    const s = source();
    const waiting = expectOutput(s.src, "never", limits(500));
    s.print("something else\r\n");
    vi.advanceTimersByTime(500);
    const error = await waiting.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CellTimeoutError);
    expect((error as CellTimeoutError).recentOutput).toContain("something else");
    expect(s.listeners()).toBe(0);
  });

  it("rejects when the program ends first, and when aborted", async () => {
    const s = source();
    const ended = expectOutput(s.src, "x", limits());
    s.exit();
    await expect(ended).rejects.toBeInstanceOf(SessionClosedError);
    const controller = new AbortController();
    const aborted = expectOutput(s.src, "x", limits(1_000, controller.signal));
    controller.abort(new Error("stop waiting"));
    await expect(aborted).rejects.toThrow("stop waiting");
    expect(s.listeners()).toBe(0);
  });
});

describe("expectScreen", () => {
  it("matches what is on the screen already", async () => {
    const s = source();
    s.print("-- INSERT --");
    expect(await expectScreen(s.src, "INSERT", limits())).toMatchObject({ match: "INSERT", before: "-- " });
  });

  it("matches a redraw in place after output (a global regex is used without its state)", async () => {
    const s = source();
    s.print("50%");
    const waiting = expectScreen(s.src, /100%/g, limits());
    s.print("\r100%");
    expect((await waiting).match).toBe("100%");
    expect(s.listeners()).toBe(0);
  });

  it("rejects at its deadline with the last screen", async () => {
    vi.useFakeTimers();
    const s = source();
    s.print("top - load average");
    const waiting = expectScreen(s.src, "never", limits(200));
    vi.advanceTimersByTime(200);
    const error = await waiting.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CellTimeoutError);
    expect((error as CellTimeoutError).recentOutput).toContain("top - load average");
  });

  it("looks once more when the program ends: what its last output drew counts", async () => {
    const s = source();
    const waiting = expectScreen(s.src, "bye", limits());
    s.draw("bye"); // drawn, but no look at the screen has come yet
    s.exit();
    expect((await waiting).match).toBe("bye");
  });
});
