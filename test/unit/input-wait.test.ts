import { afterEach, describe, expect, it, vi } from "vitest";
import { inputWait, type InputWaitOptions } from "../../src/detect/input-wait.js";
import type { DetectorIo, FrameEnd } from "../../src/detect/types.js";

// inputWait()'s rules without a PTY: the io answers for the program (is it blocked reading, did
// what was typed reach it) and time runs on a fake clock. The same on a real PTY, with a program
// that takes its input late: test/detectors/input-wait.test.ts.

afterEach(() => {
  vi.useRealTimers();
});

function harness(program: { waiting: boolean | undefined; arrived?: boolean }, options: InputWaitOptions = {}) {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate", "performance"] });
  const ended: FrameEnd[] = [];
  const io: DetectorIo = {
    write: () => undefined,
    endFrame: (end) => ended.push(end ?? {}),
    waitingForInput: () => program.waiting,
    ...(program.arrived === undefined ? {} : { inputArrived: () => program.arrived !== false }),
  };
  const detector = inputWait(options);
  detector.attach?.(io);
  return {
    detector,
    ended,
    /** The program prints its prompt and waits: the first one is learned. */
    prompt() {
      void detector.feed({ raw: "> " });
      void detector.feed({ line: "> ", partial: true });
    },
  };
}

describe("inputWait(): the cell's code not seen to reach the program", () => {
  it("a program blocked at its prompt with the code not seen to arrive does not end the cell before the fallback quiet", async () => {
    const program = { waiting: true, arrived: true };
    const h = harness(program);
    h.prompt();
    await vi.advanceTimersByTimeAsync(100);
    expect(h.ended).toHaveLength(1); // ready
    h.detector.encode?.("x = 1");
    program.arrived = false;
    await vi.advanceTimersByTimeAsync(900);
    expect(h.ended).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(150);
    expect(h.ended).toHaveLength(2);
  });

  it("once the code is seen to arrive (the program ran), the cell ends after a quiet spell from then", async () => {
    const program = { waiting: true, arrived: true };
    const h = harness(program);
    h.prompt();
    await vi.advanceTimersByTimeAsync(100);
    h.detector.encode?.("x = 1");
    program.arrived = false;
    await vi.advanceTimersByTimeAsync(500);
    program.arrived = true;
    await vi.advanceTimersByTimeAsync(100);
    expect(h.ended).toHaveLength(1); // what it prints may still be on its way
    await vi.advanceTimersByTimeAsync(300);
    expect(h.ended).toHaveLength(2);
  });

  it("a cell whose code arrived ends after quietMs, as before", async () => {
    const program = { waiting: true, arrived: true };
    const h = harness(program);
    h.prompt();
    await vi.advanceTimersByTimeAsync(100);
    h.detector.encode?.("x = 1");
    await vi.advanceTimersByTimeAsync(299);
    expect(h.ended).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2);
    expect(h.ended).toHaveLength(2);
  });

  it("where the system cannot tell, the fallback quiet counts from the cell's write, not from the last output", async () => {
    const program = { waiting: undefined };
    const h = harness(program);
    h.prompt();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.ended).toHaveLength(1); // ready
    await vi.advanceTimersByTimeAsync(5_000);
    h.detector.encode?.("x = 1");
    await vi.advanceTimersByTimeAsync(900);
    expect(h.ended).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(150);
    expect(h.ended).toHaveLength(2);
  });
});
