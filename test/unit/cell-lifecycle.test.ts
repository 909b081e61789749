import { afterEach, describe, expect, it, vi } from "vitest";
import type { DetectorInput, FeedResult, FrameDetector } from "../../src/detect/types.js";
import { frameEnd } from "../../src/detect/verdict.js";
import { AgentTtyError, SessionBusyError, SessionClosedError } from "../../src/errors.js";
import type { SessionEventFields } from "../../src/events.js";
import { CellLifecycle, RETAINED_CELLS } from "../../src/session/cell-lifecycle.js";
import { OutputPipeline } from "../../src/session/output-pipeline.js";

// A session's cells from start to end, without a PTY: the "program" is the
// test, which reads what the lifecycle typed (`typed`) and answers by pushing
// text into the output pipeline, and timeouts run on a fake clock. How real
// programs end cells is proven on real PTYs (test/detectors, test/programs, test/session).

/** A prompt detector in miniature: an unfinished `$ ` line ends the frame; `exit=N` before it gives the exit code. */
function promptDetector(extra: Partial<FrameDetector> = {}): FrameDetector {
  let exitCode: number | null = 0;
  return {
    name: "stub-prompt",
    feed(input: DetectorInput): FeedResult {
      if (!("line" in input)) return undefined;
      const code = /^exit=(\d+)$/.exec(input.line);
      if (code !== null) exitCode = Number(code[1]);
      if (input.partial && input.line === "$ ") {
        const end = frameEnd({ exitCode });
        exitCode = 0;
        return end;
      }
      return undefined;
    },
    ...extra,
  };
}

interface Options {
  detector?: FrameDetector;
  timeoutMs?: number;
  /** What the host says about the program reading the terminal. */
  waiting?: () => boolean | undefined;
  /** The program's pid (input checks need one; nothing is sent to it without shell marks). */
  pid?: number;
}

/** The lifecycle and the pipeline, wired as a session wires them, with a host that records what it is asked. */
function harness({ detector = promptDetector(), timeoutMs = 10_000, waiting = () => false, pid }: Options = {}) {
  const typed: string[] = [];
  const events: SessionEventFields[] = [];
  const failures: unknown[] = [];
  let exited = false;
  let human = false;
  // Declared first: the pipeline's host reads it lazily.
  let cells!: CellLifecycle;
  const output = new OutputPipeline(
    detector,
    { cols: 80, rows: 24 },
    {
      frame: () => cells.frame,
      cellControl: () => cells.control,
      endFrame: (end) => {
        output.frameEnded();
        cells.frameEnded(end, detector.name);
      },
      detectorFailed: (error) => failures.push(error),
      raw: () => undefined,
      answer: () => undefined,
      isRaw: () => Promise.resolve(true),
    },
  );
  cells = new CellLifecycle({ name: "unit", timeoutMs, maxOutputBytes: 1 << 20 }, detector, output, {
    write: (data) => typed.push(data),
    pid: () => pid,
    exited: () => exited,
    closing: () => false,
    assertOpen: () => {
      if (exited) throw new SessionClosedError("unit", "exited");
    },
    heldByHuman: () => human,
    waitingForInput: waiting,
    checkProcesses: () => undefined,
    emit: (fields) => events.push(fields),
    detectorFailed: (error) => failures.push(error),
  });
  return {
    cells,
    output,
    typed,
    events,
    failures,
    /** The program prints `text` (as a session takes it in: the pipeline, then a cell awaiting input runs again). */
    print(text: string) {
      output.push(text);
      cells.resume();
    },
    /** The program echoes the code it was last typed, prints `lines` and shows its prompt. */
    answer(...lines: string[]) {
      const code = (typed.at(-1) ?? "").replace(/\r$/, "");
      this.print(`${code}\r\n${lines.map((line) => `${line}\r\n`).join("")}$ `);
    },
    exit(note?: string) {
      exited = true;
      output.programExited(cells.frame !== undefined);
      cells.programExited(null, note);
    },
    setHuman(held: boolean) {
      human = held;
    },
  };
}

/** Lets queued microtasks (the next queued cell starts in one) run. */
const ticks = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

afterEach(() => {
  vi.useRealTimers();
});

describe("CellLifecycle: a cell that ends at its prompt", () => {
  it("types the code, takes the lock, and settles done with the output, exit code and who decided", async () => {
    const h = harness();
    const result = h.cells.run("echo hi", undefined);
    expect(h.typed).toEqual(["echo hi\r"]);
    expect(h.cells.state).toBe("busy");
    expect(h.cells.holder?.code).toBe("echo hi");
    h.answer("hi", "exit=3");
    const r = await result;
    expect(r).toMatchObject({ status: "done", output: "hi\nexit=3", exitCode: 3, decidedBy: "stub-prompt", code: "echo hi" });
    expect(h.cells.state).toBe("idle");
    expect(h.cells.holder).toBeUndefined();
    expect(h.events.map((e) => e.type)).toEqual(["fired", "done"]);
  });

  it("refuses a second cell while one holds the lock, typing nothing", () => {
    const h = harness();
    const first = h.cells.fire("sleep 1", undefined);
    expect(() => h.cells.fire("echo late", undefined)).toThrow(SessionBusyError);
    expect(h.typed).toEqual(["sleep 1\r"]);
    expect(first.status).toBe("running");
  });

  it("queues cells with { queue: true } and types each only after the one before settled", async () => {
    const h = harness();
    const a = h.cells.fire("echo a", undefined);
    const b = h.cells.fire("echo b", { queue: true });
    expect(b.status).toBe("queued");
    expect(h.typed).toEqual(["echo a\r"]);
    h.answer("a");
    await a.result;
    await ticks();
    expect(h.typed).toEqual(["echo a\r", "echo b\r"]);
    h.answer("b");
    expect((await b.result).output).toBe("b");
  });

  it("refuses cells while a person holds the terminal", () => {
    const h = harness();
    h.setHuman(true);
    expect(() => h.cells.fire("ls", undefined)).toThrow(expect.objectContaining({ code: "ERR_HUMAN_CONTROL" }));
    expect(h.typed).toEqual([]);
  });

  it("a cell whose code the detector cannot encode settles interrupted and frees the lock", async () => {
    const boom = new Error("cannot encode");
    const h = harness({
      detector: promptDetector({
        encode: () => {
          throw boom;
        },
      }),
    });
    const r = await h.cells.run("ls", undefined);
    expect(r).toMatchObject({ status: "interrupted", decidedBy: "detector-error" });
    expect(h.failures).toEqual([boom]);
    expect(h.cells.state).toBe("idle");
  });

  it("holds a cell while a command typed outside cells still runs, and types it at that command's prompt", async () => {
    const h = harness({ detector: promptDetector({ tracksPrompt: true }) });
    h.cells.noteInput("sleep 5\r");
    const cell = h.cells.fire("echo after", undefined);
    expect(h.typed).toEqual([]);
    h.print("sleep 5\r\n$ ");
    await ticks();
    expect(h.typed).toEqual(["echo after\r"]);
    h.answer("after");
    expect((await cell.result).output).toBe("after");
  });
});

describe("CellLifecycle: timeouts", () => {
  it("reports timeout but keeps the lock until the prompt: the next cell is refused as timed out", async () => {
    vi.useFakeTimers();
    const h = harness();
    const cell = h.cells.fire("sleep 100", { timeoutMs: 500 });
    h.print("sleep 100\r\npartial output\r\n");
    vi.advanceTimersByTime(500);
    const r = await cell.result;
    expect(r).toMatchObject({ status: "timeout", decidedBy: "timeout", exitCode: null, output: "partial output" });
    expect(h.cells.state).toBe("timed_out");
    expect(() => h.cells.fire("echo next", undefined)).toThrow(/timed out and may still be running/);
    h.print("$ ");
    expect(h.cells.state).toBe("idle");
    expect(h.cells.poll(r.cellId)?.status).toBe("timeout");
  });

  it('with onTimeout: "interrupt" types Ctrl-C and settles timeout once the prompt is back', async () => {
    vi.useFakeTimers();
    const h = harness();
    const cell = h.cells.fire("sleep 100", { timeoutMs: 500, onTimeout: "interrupt" });
    h.print("sleep 100\r\n");
    await vi.advanceTimersByTimeAsync(500);
    expect(h.typed).toEqual(["sleep 100\r", "\x03"]);
    h.print("^C\r\n$ ");
    expect(await cell.result).toMatchObject({ status: "timeout", decidedBy: "timeout", exitCode: null });
    expect(h.cells.state).toBe("idle");
  });

  it("wait({ timeoutMs }) gives the running cell a new deadline from now", async () => {
    vi.useFakeTimers();
    const h = harness();
    const cell = h.cells.fire("make", { timeoutMs: 500 });
    vi.advanceTimersByTime(400);
    const waited = h.cells.wait(1_000, false);
    vi.advanceTimersByTime(900);
    expect(h.cells.poll(cell.id)?.status).toBe("running");
    vi.advanceTimersByTime(100);
    expect((await waited).status).toBe("timeout");
  });
});

describe("CellLifecycle: interrupts and aborts", () => {
  it("interrupt() types Ctrl-C and resolves with the cell interrupted once the prompt is back", async () => {
    const h = harness();
    h.cells.fire("sleep 100", undefined);
    h.print("sleep 100\r\n");
    const interrupted = h.cells.interrupt(false);
    await ticks();
    expect(h.typed.at(-1)).toBe("\x03");
    h.print("^C\r\n$ ");
    expect(await interrupted).toMatchObject({ status: "interrupted", decidedBy: "interrupt" });
    expect(h.cells.state).toBe("idle");
  });

  it("interrupt() with no cell running resolves undefined and types nothing", async () => {
    const h = harness();
    expect(await h.cells.interrupt(false)).toBeUndefined();
    expect(h.typed).toEqual([]);
  });

  it("types Ctrl-C again while the prompt does not come back; with no prompt and the program not reading, the lock stays held", async () => {
    vi.useFakeTimers();
    const h = harness({ waiting: () => false });
    h.cells.fire("trap '' INT; sleep 100", undefined);
    const interrupted = h.cells.interrupt(false);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(h.typed.filter((key) => key === "\x03").length).toBeGreaterThan(5);
    expect(await interrupted).toMatchObject({ status: "interrupted" });
    expect(h.cells.state).toBe("timed_out");
    expect(() => h.cells.fire("echo next", undefined)).toThrow(SessionBusyError);
  });

  it("releases the lock without a prompt when the program is seen waiting for input, and says so", async () => {
    vi.useFakeTimers();
    const h = harness({ waiting: () => true });
    h.cells.fire("psql", undefined);
    h.print("psql\r\npostgres=*# ");
    const interrupted = h.cells.interrupt(false);
    await vi.advanceTimersByTimeAsync(3_000);
    const r = await interrupted;
    expect(r?.status).toBe("interrupted");
    expect(r?.output).toContain("the program is waiting for input: the session was released");
    expect(h.cells.state).toBe("idle");
  });

  it("interrupt({ force: true }) releases the lock after 1 s whatever the program does, and says so", async () => {
    vi.useFakeTimers();
    const h = harness({ waiting: () => false });
    h.cells.fire("busy loop", undefined);
    const interrupted = h.cells.interrupt(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await interrupted)?.output).toContain("interrupt({ force: true }) released the session");
    expect(h.cells.state).toBe("idle");
  });

  it("an aborted signal interrupts the running cell, and removes a queued one with the signal's reason", async () => {
    const h = harness();
    const running = new AbortController();
    const queued = new AbortController();
    const a = h.cells.fire("sleep 100", { signal: running.signal });
    const b = h.cells.fire("echo b", { queue: true, signal: queued.signal });
    queued.abort(new Error("not wanted"));
    await expect(b.result).rejects.toThrow("not wanted");
    running.abort();
    await ticks();
    expect(h.typed.at(-1)).toBe("\x03");
    h.print("^C\r\n$ ");
    expect((await a.result).status).toBe("interrupted");
    await ticks();
    expect(h.typed).not.toContain("echo b\r");
  });
});

describe("CellLifecycle: awaiting input", () => {
  it("a quiet program blocked reading the terminal makes run({ untilInput }) return awaiting_input with the question; output makes it run again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval", "clearTimeout", "clearInterval", "setImmediate", "performance", "Date"] });
    let reading = false;
    const h = harness({ waiting: () => reading, pid: 4_000_000 });
    const result = h.cells.run("read -p 'Name? ' n", { untilInput: true });
    h.print("read -p 'Name? ' n\r\nName? ");
    await vi.advanceTimersByTimeAsync(500);
    expect(h.cells.poll(undefined)?.status).toBe("running"); // quiet, but not reading
    reading = true;
    await vi.advanceTimersByTimeAsync(200);
    const r = await result;
    expect(r).toMatchObject({ status: "awaiting_input", decidedBy: "input", output: "Name? " });
    expect(h.cells.holder?.status).toBe("awaiting_input");
    h.print("x");
    expect(h.cells.holder?.status).toBe("running");
  });
});

describe("CellLifecycle: the program exits, results are kept", () => {
  it("settles the running cell exited (with the session's note) and fails the queued ones", async () => {
    const h = harness();
    const a = h.cells.fire("exit", undefined);
    const b = h.cells.fire("echo b", { queue: true });
    h.print("exit\r\nlogout\r\n");
    h.exit("agent-tty: killed");
    expect(await a.result).toMatchObject({ status: "exited", decidedBy: "exit", output: "logout\nagent-tty: killed" });
    await expect(b.result).rejects.toBeInstanceOf(SessionClosedError);
  });

  it(`poll() knows the last ${RETAINED_CELLS} settled cells and names the limit for older ones`, async () => {
    const h = harness();
    const ids: string[] = [];
    for (let i = 0; i <= RETAINED_CELLS; i++) {
      const cell = h.cells.fire(`echo ${i}`, undefined);
      ids.push(cell.id);
      h.answer(String(i));
      await cell.result;
      await ticks();
    }
    expect(h.cells.poll(ids.at(-1))).toMatchObject({ status: "done", output: String(RETAINED_CELLS), exitCode: 0 });
    expect(h.cells.poll(ids[1])?.status).toBe("done");
    expect(() => h.cells.poll(ids[0])).toThrow(`the last ${RETAINED_CELLS} cells are kept`);
  });

  it(`poll() keeps exactly the last ${RETAINED_CELLS} settled cells over many turns of its ring`, async () => {
    const h = harness();
    const ids: string[] = [];
    const total = RETAINED_CELLS * 2 + RETAINED_CELLS / 2;
    for (let i = 0; i < total; i++) {
      const cell = h.cells.fire(`echo ${i}`, undefined);
      ids.push(cell.id);
      h.answer(String(i));
      await cell.result;
      await ticks();
    }
    for (let i = 0; i < total; i++) {
      if (i < total - RETAINED_CELLS) expect(() => h.cells.poll(ids[i])).toThrow("cells are kept");
      else expect(h.cells.poll(ids[i])).toMatchObject({ cellId: ids[i], status: "done", output: String(i) });
    }
    expect(h.cells.poll(undefined)).toMatchObject({ cellId: ids.at(-1), output: String(total - 1) });
  });

  it("wait() before any cell is ERR_UNKNOWN_CELL; after, the last result", async () => {
    const h = harness();
    expect(() => h.cells.wait(undefined, false)).toThrow(AgentTtyError);
    const cell = h.cells.fire("true", undefined);
    h.answer();
    const r = await cell.result;
    expect(await h.cells.wait(undefined, false)).toBe(r);
  });
});

describe("CellLifecycle: after an interrupt", () => {
  it("a queued cell is typed only once the program has taken in the Ctrl-C (quiet and reading)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval", "clearTimeout", "clearInterval", "performance", "Date"] });
    let reading = false;
    const h = harness({ waiting: () => reading });
    const a = h.cells.fire("sleep 100", undefined);
    const b = h.cells.fire("echo b", { queue: true });
    const interrupted = h.cells.interrupt(false);
    await ticks();
    h.print("sleep 100\r\n^C\r\n$ ");
    expect((await a.result).status).toBe("interrupted");
    await interrupted;
    await vi.advanceTimersByTimeAsync(200);
    expect(h.typed).not.toContain("echo b\r"); // the shell is not seen back at reading yet
    expect(b.status).toBe("running");
    reading = true;
    await vi.advanceTimersByTimeAsync(40);
    expect(h.typed.at(-1)).toBe("echo b\r");
    h.answer("b");
    expect((await b.result).output).toBe("b");
  });

  it("a cell that reported timeout and is then force-released is reported interrupted, the note after its output", async () => {
    vi.useFakeTimers();
    const h = harness({ waiting: () => false });
    const cell = h.cells.fire("psql", { timeoutMs: 500 });
    h.print("psql\r\nBEGIN\r\n");
    vi.advanceTimersByTime(500);
    expect((await cell.result).status).toBe("timeout");
    const released = h.cells.interrupt(true);
    await vi.advanceTimersByTimeAsync(1_000);
    const r = await released;
    expect(r).toMatchObject({ status: "interrupted", decidedBy: "interrupt", exitCode: null });
    expect(r?.output).toMatch(/^BEGIN\n\[agent-tty: interrupt\(\{ force: true \}\) released the session/);
    expect(h.cells.state).toBe("idle");
  });
});
