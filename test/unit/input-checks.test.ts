import { afterEach, describe, expect, it, vi } from "vitest";
import type { FrameDetector } from "../../src/detect/types.js";
import { InputChecks } from "../../src/session/input-checks.js";

// "Is the program waiting for input?", without a PTY: the host answers for
// the program (is it blocked reading the terminal, when it last printed) and
// time runs on a fake clock. Real programs waiting for input (read, python's
// input(), a password prompt) are proven on real PTYs in
// test/session/awaiting-input.test.ts.

interface Options {
  /** What the host says about the program reading the terminal. */
  waiting?: () => boolean | undefined;
  /** No program (it has no pid): nothing is checked. */
  noProgram?: boolean;
  /** A cell over ssh or in a container. */
  remote?: boolean;
  /** The program's run stamp (changes whenever it runs); none: the host cannot tell. */
  runStamp?: () => string | undefined;
}

function harness({ waiting = () => true, noProgram = false, remote = false, runStamp }: Options = {}) {
  const detector: FrameDetector = { name: "stub", feed: () => undefined, ...(remote ? { interruptByKey: () => true } : {}) };
  const output = { lastOutputAt: 0 };
  let processChecks = 0;
  const checks = new InputChecks(
    detector,
    {
      pid: () => (noProgram ? undefined : 4_000_000),
      waitingForInput: waiting,
      checkProcesses: () => {
        processChecks++;
      },
      ...(runStamp === undefined ? {} : { runStamp }),
    },
    output,
  );
  let running = true;
  const awaitingInput = vi.fn(() => {
    running = false;
  });
  return {
    checks,
    awaitingInput,
    /** Starts checking a cell that runs until it settles awaiting input (or `settle()`). */
    start() {
      checks.start({ running: () => running, awaitingInput });
    },
    /** The cell settled some other way (its prompt came back). */
    settle() {
      running = false;
    },
    print() {
      output.lastOutputAt = performance.now();
    },
    processChecks: () => processChecks,
  };
}

/** Fake timers, performance.now() included. */
function useFakeTime(): void {
  vi.useFakeTimers({
    toFake: ["setTimeout", "setInterval", "clearTimeout", "clearInterval", "setImmediate", "clearImmediate", "performance", "Date"],
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("InputChecks: a program blocked reading the terminal", () => {
  it("settles the cell awaiting input once quiet for a moment, and only once", async () => {
    useFakeTime();
    const h = harness({ waiting: () => true });
    h.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(h.awaitingInput).not.toHaveBeenCalled(); // typed just now: not quiet yet
    await vi.advanceTimersByTimeAsync(200);
    expect(h.awaitingInput).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.awaitingInput).toHaveBeenCalledTimes(1);
  });

  it("does not while the program keeps printing", async () => {
    useFakeTime();
    const h = harness({ waiting: () => true });
    h.start();
    for (let elapsed = 0; elapsed < 2_000; elapsed += 50) {
      h.print();
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(h.awaitingInput).not.toHaveBeenCalled();
  });

  it("does not for a quiet program that is not reading (a long computation, sleep)", async () => {
    useFakeTime();
    const h = harness({ waiting: () => false });
    h.start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(h.awaitingInput).not.toHaveBeenCalled();
  });

  it("input typed since restarts the quiet", async () => {
    useFakeTime();
    const h = harness({ waiting: () => true });
    h.start();
    for (let elapsed = 0; elapsed < 1_000; elapsed += 100) {
      h.checks.noteInput();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(h.awaitingInput).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(250);
    expect(h.awaitingInput).toHaveBeenCalledTimes(1);
  });

  it("output read just after the program was seen blocked (the prompt it printed before reading) means it was not waiting", async () => {
    useFakeTime();
    let printLate = (): void => undefined;
    const h = harness({
      waiting: () => {
        setImmediate(() => printLate()); // already in the terminal, read on the event loop's next turn
        return true;
      },
    });
    printLate = () => h.print();
    h.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(h.awaitingInput).not.toHaveBeenCalled();
  });

  it("a program seen blocked just after a long quiet is looked at again: output late by less than a check means it was not waiting", async () => {
    useFakeTime();
    // A shell back at its prompt after `sleep`: blocked reading from the first check on, its last output
    // still in the kernel's terminal buffers for 40 ms (seen under load), then nothing more.
    let blocked = false;
    const h = harness({ waiting: () => blocked });
    h.start();
    await vi.advanceTimersByTimeAsync(1_000); // the long quiet command: not reading
    expect(h.awaitingInput).not.toHaveBeenCalled();
    blocked = true;
    await vi.advanceTimersByTimeAsync(50); // one check sees it blocked
    expect(h.awaitingInput).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(40);
    h.print(); // its prompt arrives
    h.settle(); // and ends the cell, as a detector would
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.awaitingInput).not.toHaveBeenCalled();
  });

  it("a program blocked after a long quiet with nothing more to print is awaiting input one check later", async () => {
    useFakeTime();
    let blocked = false;
    const h = harness({ waiting: () => blocked });
    h.start();
    await vi.advanceTimersByTimeAsync(1_000);
    blocked = true;
    await vi.advanceTimersByTimeAsync(50);
    expect(h.awaitingInput).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(60);
    expect(h.awaitingInput).toHaveBeenCalledTimes(1);
  });

  it("does not settle a cell that settled otherwise meanwhile", async () => {
    useFakeTime();
    const h = harness({ waiting: () => true });
    h.start();
    h.settle();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(h.awaitingInput).not.toHaveBeenCalled();
  });

  it("checks nothing after stop(), nor without a program", async () => {
    useFakeTime();
    const stopped = harness({ waiting: () => true });
    stopped.start();
    stopped.checks.stop();
    const none = harness({ waiting: () => true, noProgram: true });
    none.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(stopped.awaitingInput).not.toHaveBeenCalled();
    expect(none.awaitingInput).not.toHaveBeenCalled();
    none.checks.stop();
  });
});

describe("InputChecks: typed input not yet seen to reach the program", () => {
  it("an answer typed while the program sleeps on, nothing printed since: not awaiting input before the long quiet", async () => {
    useFakeTime();
    const stamps = vi.fn(() => "1 0 0 7"); // the program never runs
    const h = harness({ waiting: () => true, runStamp: stamps });
    h.start();
    await vi.advanceTimersByTimeAsync(1);
    h.print(); // the cell's echo and its question
    await vi.advanceTimersByTimeAsync(20);
    h.checks.noteInput(); // the answer
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.awaitingInput).not.toHaveBeenCalled(); // still in the kernel, as far as anyone can see
    await vi.advanceTimersByTimeAsync(600);
    expect(h.awaitingInput).toHaveBeenCalledTimes(1); // the long quiet decides
  });

  it("once the program ran (it woke up to read) or printed, a quiet blocked program is awaiting input as soon as before", async () => {
    useFakeTime();
    let stamp = "1 0 0 7";
    const ran = harness({ waiting: () => true, runStamp: () => stamp });
    ran.start();
    ran.checks.noteInput();
    stamp = "1 5 0 8";
    await vi.advanceTimersByTimeAsync(300);
    expect(ran.awaitingInput).toHaveBeenCalledTimes(1);

    const printed = harness({ waiting: () => true, runStamp: () => "1 0 0 7" });
    printed.start();
    printed.checks.noteInput();
    await vi.advanceTimersByTimeAsync(20);
    printed.print(); // the answer's echo
    await vi.advanceTimersByTimeAsync(300);
    expect(printed.awaitingInput).toHaveBeenCalledTimes(1);
  });

  it("a cell's code with nothing printed and the program not run since: not awaiting input before the long quiet", async () => {
    useFakeTime();
    const stamps = vi.fn(() => "1 0 0 7");
    const h = harness({ waiting: () => true, runStamp: stamps });
    h.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.awaitingInput).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(600);
    expect(h.awaitingInput).toHaveBeenCalledTimes(1);
  });

  it("a cell whose code was echoed does not look at the program's runs", async () => {
    useFakeTime();
    const stamps = vi.fn(() => "1 0 0 7");
    const h = harness({ waiting: () => true, runStamp: stamps });
    h.start();
    await vi.advanceTimersByTimeAsync(1);
    h.print();
    await vi.advanceTimersByTimeAsync(300);
    expect(h.awaitingInput).toHaveBeenCalledTimes(1);
    expect(stamps).not.toHaveBeenCalled();
  });
});

describe("InputChecks: where the terminal's reader cannot be seen", () => {
  it("without /proc, a long quiet alone decides", async () => {
    useFakeTime();
    const h = harness({ waiting: () => undefined });
    h.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.awaitingInput).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(600);
    expect(h.awaitingInput).toHaveBeenCalledTimes(1);
  });

  it("over ssh, the local ssh reading the terminal says nothing: a long quiet decides", async () => {
    useFakeTime();
    const reading = vi.fn(() => true);
    const h = harness({ waiting: reading, remote: true });
    h.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.awaitingInput).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(600);
    expect(h.awaitingInput).toHaveBeenCalledTimes(1);
    expect(reading).not.toHaveBeenCalled();
  });
});

describe("InputChecks: the fork-bomb guard rides the same timer", () => {
  it("counts the terminal's processes every half second while a cell runs, and stops with the checks", async () => {
    useFakeTime();
    const h = harness({ waiting: () => false });
    h.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(h.processChecks()).toBe(4);
    h.checks.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(h.processChecks()).toBe(4);
  });
});
