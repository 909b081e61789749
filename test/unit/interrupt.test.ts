import { afterEach, describe, expect, it, vi } from "vitest";
import type { FrameDetector } from "../../src/detect/types.js";
import { Interrupter, RELEASED_FORCED_NOTE, RELEASED_READING_NOTE } from "../../src/session/interrupt.js";

// How a cell is interrupted, without a PTY: the "terminal" records what is
// typed, the "program" is what the host answers (is it reading, has it
// printed), and the cell is a flag the test clears when "its prompt" comes
// back. Time runs on a fake clock. Interrupting real programs (bash jobs,
// builtins, psql, ssh) is proven on real PTYs: test/session/interrupt-release.test.ts,
// test/session/cells.test.ts, test/programs/psql.test.ts, test/remote/.

/** A detector without shell marks (so Ctrl-C is typed, never a signal), with what a test gives it. */
function detector(extra: Partial<FrameDetector> = {}): FrameDetector {
  return { name: "stub", feed: () => undefined, ...extra };
}

interface Options {
  detector?: FrameDetector;
  /** What the host says about the program reading the terminal. */
  waiting?: () => boolean | undefined;
  /** What the host says about the program running (or reading): not asleep elsewhere. */
  active?: () => boolean;
}

function harness({ detector: given = detector(), waiting = () => false, active }: Options = {}) {
  const typed: string[] = [];
  const output = { lastOutputAt: 0 };
  let exited = false;
  const interrupter = new Interrupter(
    given,
    {
      write: (data) => typed.push(data),
      pid: () => undefined,
      exited: () => exited,
      closing: () => false,
      waitingForInput: waiting,
      ...(active === undefined ? {} : { foregroundActive: active }),
    },
    output,
  );
  /** The cell being stopped: it holds the lock until `prompt()`. */
  let holds = true;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const target = { holdsLock: () => holds, released: () => released };
  return {
    interrupter,
    typed,
    target,
    /** The cell's prompt came back: it released the lock. */
    prompt() {
      holds = false;
      release();
    },
    /** The program printed something now. */
    print() {
      output.lastOutputAt = performance.now();
    },
    exit() {
      exited = true;
    },
    ctrlCs: () => typed.filter((key) => key === "\x03").length,
  };
}

/** Fake timers, performance.now() included. */
function useFakeTime(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "setInterval", "clearTimeout", "clearInterval", "performance", "Date"] });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("Interrupter.stop: Ctrl-C until the prompt is back", () => {
  it("types Ctrl-C at once and resolves undefined once the cell released the lock at its prompt", async () => {
    useFakeTime();
    const h = harness();
    const stopped = h.interrupter.stop(h.target, false);
    expect(h.typed).toEqual(["\x03"]);
    h.prompt();
    expect(await stopped).toBeUndefined();
  });

  it("types Ctrl-C again while the prompt does not come back, and stops typing once it does", async () => {
    useFakeTime();
    const h = harness();
    const stopped = h.interrupter.stop(h.target, false);
    await vi.advanceTimersByTimeAsync(1_000);
    const sent = h.ctrlCs();
    expect(sent).toBeGreaterThan(2);
    h.prompt();
    await stopped;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(h.ctrlCs()).toBe(sent);
  });

  it("with no prompt and the program not reading, resolves undefined after its grace: the lock stays held", async () => {
    useFakeTime();
    const h = harness({ waiting: () => false });
    let result: string | undefined = "pending";
    void h.interrupter.stop(h.target, false).then((note) => (result = note));
    await vi.advanceTimersByTimeAsync(2_900);
    expect(result).toBe("pending");
    await vi.advanceTimersByTimeAsync(100);
    expect(result).toBeUndefined();
  });

  it("with no prompt but the program seen reading the terminal, resolves the note that releases the lock", async () => {
    useFakeTime();
    const h = harness({ waiting: () => true });
    const stopped = h.interrupter.stop(h.target, false);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await stopped).toBe(RELEASED_READING_NOTE);
  });

  it("with no prompt and the program still running when the grace ends, looks again until it is seen reading (under load it takes in the last Ctrl-C late)", async () => {
    useFakeTime();
    const start = performance.now();
    const h = harness({ waiting: () => performance.now() - start >= 3_500, active: () => true });
    let result: string | undefined = "pending";
    void h.interrupter.stop(h.target, false).then((note) => (result = note));
    await vi.advanceTimersByTimeAsync(3_400);
    expect(result).toBe("pending");
    const sent = h.ctrlCs();
    await vi.advanceTimersByTimeAsync(200);
    expect(result).toBe(RELEASED_READING_NOTE);
    // No Ctrl-C after the grace: the look waits for the one sent last to be taken in.
    expect(h.ctrlCs()).toBe(sent);
  });

  it("gives up that look after 2 s, and at once for a program asleep elsewhere (a sleep, a child): the lock stays held", async () => {
    useFakeTime();
    const running = harness({ waiting: () => false, active: () => true });
    let kept: string | undefined = "pending";
    void running.interrupter.stop(running.target, false).then((note) => (kept = note));
    await vi.advanceTimersByTimeAsync(4_900);
    expect(kept).toBe("pending");
    await vi.advanceTimersByTimeAsync(200);
    expect(kept).toBeUndefined();

    const asleep = harness({ waiting: () => false, active: () => false });
    const stopped = asleep.interrupter.stop(asleep.target, false);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await stopped).toBeUndefined();
  });

  it("with force, resolves the forced-release note after 1 s whatever the program does", async () => {
    useFakeTime();
    const h = harness({ waiting: () => false });
    const stopped = h.interrupter.stop(h.target, true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await stopped).toBe(RELEASED_FORCED_NOTE);
  });

  it("where /proc cannot tell whether the program reads, only force releases the lock", async () => {
    useFakeTime();
    const h = harness({ waiting: () => undefined });
    const kept = h.interrupter.stop(h.target, false);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await kept).toBeUndefined();
  });
});

describe("Interrupter.stop over ssh or in a container (the Ctrl-C is typed to the far side)", () => {
  it("types Ctrl-C again while the prompt does not come back", async () => {
    useFakeTime();
    const h = harness({ detector: detector({ interruptByKey: () => true }) });
    const stopped = h.interrupter.stop(h.target, false);
    expect(h.typed).toEqual(["\x03"]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.ctrlCs()).toBeGreaterThan(2);
    h.prompt();
    expect(await stopped).toBeUndefined();
  });

  it("types it again ever more rarely: 300 ms after the first, then twice as long after each (a far prompt command is not cut short for ever)", async () => {
    useFakeTime();
    const h = harness({ detector: detector({ interruptByKey: () => true }) });
    const start = performance.now();
    void h.interrupter.stop(h.target, false);
    const ctrlCsAt = async (ms: number): Promise<number> => {
      await vi.advanceTimersByTimeAsync(start + ms - performance.now());
      return h.ctrlCs();
    };
    const counts: number[] = [];
    for (const ms of [299, 301, 899, 901, 2_099, 2_101, 2_999]) counts.push(await ctrlCsAt(ms));
    expect(counts).toEqual([1, 2, 2, 3, 3, 4, 4]);
  });

  it("stops typing Ctrl-C once the program (ssh) exited", async () => {
    useFakeTime();
    const h = harness({ detector: detector({ interruptByKey: () => true }) });
    void h.interrupter.stop(h.target, false);
    await vi.advanceTimersByTimeAsync(400);
    h.exit();
    const sent = h.ctrlCs();
    await vi.advanceTimersByTimeAsync(2_600);
    expect(h.ctrlCs()).toBe(sent);
  });

  it("does not take the local ssh reading the terminal for the far program waiting: only force releases the lock", async () => {
    useFakeTime();
    const remote = detector({ interruptByKey: () => true });
    const kept = harness({ detector: remote, waiting: () => true });
    const notReleased = kept.interrupter.stop(kept.target, false);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await notReleased).toBeUndefined();
    const forced = harness({ detector: remote, waiting: () => true });
    const released = forced.interrupter.stop(forced.target, true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await released).toBe(RELEASED_FORCED_NOTE);
  });
});

describe("Interrupter.stop with the detector's own interrupt key", () => {
  it("types that key once and never again (a key other than Ctrl-C may do something else when repeated)", async () => {
    useFakeTime();
    const h = harness({ detector: detector({ interruptSequence: () => "\x1b:q!\r" }) });
    const stopped = h.interrupter.stop(h.target, false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(h.typed).toEqual(["\x1b:q!\r"]);
    h.prompt();
    expect(await stopped).toBeUndefined();
  });
});

describe("Interrupter.cellReleased over ssh: an empty line after the clear key", () => {
  const shell = (): FrameDetector => detector({ interruptByKey: () => true, clearLineSequence: () => "\x18\x0b", tracksPrompt: true });

  it("released by its prompt: types the clear key and an empty line, and says the next cell must wait for its prompt", async () => {
    useFakeTime();
    const h = harness({ detector: shell() });
    const stopped = h.interrupter.stop(h.target, false);
    h.prompt();
    await stopped;
    expect(h.interrupter.cellReleased(() => undefined, true)).toBe(true);
    expect(h.typed).toEqual(["\x03", "\x18\x0b\r"]);
  });

  it("released without its prompt (force): types the clear key only, nothing that would submit a line to what still runs", async () => {
    useFakeTime();
    const h = harness({ detector: shell() });
    const stopped = h.interrupter.stop(h.target, true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await stopped).toBe(RELEASED_FORCED_NOTE);
    expect(h.interrupter.cellReleased(() => undefined, false)).toBe(false);
    expect(h.typed.at(-1)).toBe("\x18\x0b");
  });

  it("a local shell (the job got SIGINT, not the shell at its prompt) gets the clear key only", async () => {
    useFakeTime();
    const h = harness({ detector: detector({ clearLineSequence: () => "\x18\x0b", tracksPrompt: true }) });
    const stopped = h.interrupter.stop(h.target, false);
    h.prompt();
    await stopped;
    expect(h.interrupter.cellReleased(() => undefined, true)).toBe(false);
    expect(h.typed).toEqual(["\x03", "\x18\x0b"]);
  });
});

describe("Interrupter.cellReleased: the next cell waits until the Ctrl-C was taken in", () => {
  it("with no Ctrl-C sent, holds nothing and never calls back", async () => {
    useFakeTime();
    const h = harness();
    const ready = vi.fn();
    h.interrupter.cellReleased(ready);
    expect(h.interrupter.settling).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(ready).not.toHaveBeenCalled();
  });

  it("after a Ctrl-C, holds the next cell until the program is quiet and not seen busy, then calls back once", async () => {
    useFakeTime();
    let reading = false;
    const h = harness({ waiting: () => reading });
    const stopped = h.interrupter.stop(h.target, false);
    h.prompt();
    await stopped;
    const ready = vi.fn();
    h.interrupter.cellReleased(ready);
    expect(h.interrupter.settling).toBe(true);
    await vi.advanceTimersByTimeAsync(200);
    expect(ready).not.toHaveBeenCalled(); // quiet, but the program is not back to reading
    reading = true;
    await vi.advanceTimersByTimeAsync(40);
    expect(ready).toHaveBeenCalledTimes(1);
    expect(h.interrupter.settling).toBe(false);
  });

  it("keeps holding while the program prints, and gives up waiting after 1 s", async () => {
    useFakeTime();
    const h = harness({ waiting: () => true });
    const stopped = h.interrupter.stop(h.target, false);
    h.prompt();
    await stopped;
    const ready = vi.fn();
    h.interrupter.cellReleased(ready);
    for (let elapsed = 0; elapsed < 900; elapsed += 10) {
      h.print();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(ready).not.toHaveBeenCalled();
    for (let elapsed = 0; elapsed < 200; elapsed += 10) {
      h.print();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(ready).toHaveBeenCalledTimes(1);
  });

  it("types the detector's clear-line keys first (the line a Ctrl-C may have left behind)", async () => {
    useFakeTime();
    const h = harness({ detector: detector({ clearLineSequence: () => "\x15" }), waiting: () => true });
    const stopped = h.interrupter.stop(h.target, false);
    h.prompt();
    await stopped;
    h.interrupter.cellReleased(() => undefined);
    expect(h.typed).toEqual(["\x03", "\x15"]);
  });

  it("a second release without a new Ctrl-C holds nothing", async () => {
    useFakeTime();
    const h = harness({ waiting: () => true });
    const stopped = h.interrupter.stop(h.target, false);
    h.prompt();
    await stopped;
    const first = vi.fn();
    h.interrupter.cellReleased(first);
    await vi.advanceTimersByTimeAsync(100);
    expect(first).toHaveBeenCalledTimes(1);
    const second = vi.fn();
    h.interrupter.cellReleased(second);
    expect(h.interrupter.settling).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(second).not.toHaveBeenCalled();
  });
});
