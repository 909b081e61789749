import type { FrameDetector } from "../detect/types.js";
import { LapsingInterval } from "../internal/lapsing-interval.js";

/** How often a running cell checks whether the program waits for input. */
const INPUT_CHECK_MS = 50;
/** Processes of the terminal's session are counted every this many input checks (half a second). */
const PROCESS_CHECK_EVERY = 10;
/** Quiet time before a program blocked reading the terminal counts as awaiting input. */
const INPUT_QUIET_MS = 150;
/**
 * Where /proc cannot tell, quiet time alone decides (a guess, so a longer one). So it does while
 * typed input has not been seen to reach the program (see `InputChecks.typedInputArrived`).
 */
const INPUT_FALLBACK_QUIET_MS = 1_500;
/**
 * A cell's code with nothing printed this long after it was written: the program is looked at (its
 * run stamp, see `InputChecks.typedInputArrived`). Sooner, the echo is usually still on its way (a check
 * made just after the write would look at most cells for nothing).
 */
const ECHO_WAIT_MS = 10;

/** When the program last printed (the output pipeline knows, see `OutputPipeline.lastOutputAt`). */
export interface ProgramOutput {
  /** `performance.now()` when the last output arrived. */
  readonly lastOutputAt: number;
}

/** What the input checks ask of the session: the program, the fork-bomb guard. */
export interface InputChecksHost {
  /** The program's process id, `undefined` when it has none (nothing is checked). */
  pid(): number | undefined;
  /** Whether the program's foreground process is blocked reading the terminal (`undefined`: cannot tell here). */
  waitingForInput(): boolean | undefined;
  /** The fork-bomb guard, called every half second while a cell runs. */
  checkProcesses(): void;
  /**
   * A stamp of the program in the terminal's foreground that changes whenever it runs (Linux: its
   * scheduler counts in /proc); equal stamps a while apart mean it slept all along. `undefined`
   * (or no method): cannot tell.
   */
  runStamp?(): string | undefined;
}

/** The cell being checked: whether it still runs undisturbed, and how it settles as awaiting input. */
export interface InputCheckedCell {
  /** Whether the cell still holds the lock and runs (not stopping, not settled, not already awaiting input). */
  running(): boolean;
  /** The program waits for input: the cell settles `awaiting_input`. */
  awaitingInput(): void;
}

/**
 * "Is the program waiting for input?", asked every 50 ms while a cell runs:
 * a program that went quiet and is blocked reading the terminal (Linux: the
 * foreground process group's state in /proc, select and poll included) is
 * awaiting input; where the OS cannot tell (or over ssh, where the local
 * foreground is ssh itself), a longer quiet alone decides. So it does while
 * typed input has not been seen to reach the program: nothing printed since,
 * and the program has not run since (it sleeps in the wait it was in before;
 * under load Linux hands typed input over late). The fork-bomb guard rides
 * the same timer.
 *
 * Members TypeScript-`private`, not `#private` (see `CellLifecycle`: cheaper on every cell's path).
 *
 * @internal
 */
export class InputChecks {
  private readonly detector: FrameDetector;
  private readonly host: InputChecksHost;
  private readonly output: ProgramOutput;
  private cell: InputCheckedCell | undefined;
  /** One timer for back-to-back cells (see {@link LapsingInterval}). */
  private readonly timer = new LapsingInterval(INPUT_CHECK_MS, () => {
    if (++this.ticks % PROCESS_CHECK_EVERY === 0) this.host.checkProcesses();
    this.check();
  });
  private ticks = 0;
  private lastInputAt = 0;
  /** Whether the input typed last was seen to reach the program (it printed or ran since), or nobody can tell. */
  private inputSeen = true;
  /** The program's run stamp when that input was typed (`undefined`: not taken yet; `null`: cannot tell). */
  private stampAtInput: string | null | undefined;
  /** When the program was first seen blocked reading in the current quiet spell (`undefined`: not seen). */
  private blockedSeenAt: number | undefined;

  constructor(detector: FrameDetector, host: InputChecksHost, output: ProgramOutput) {
    this.detector = detector;
    this.host = host;
    this.output = output;
  }

  /** Input was typed (a cell's code, `write`): the program is not quiet from that moment. */
  noteInput(): void {
    this.lastInputAt = performance.now();
    if (this.cell === undefined) return;
    // Typed into a running cell (an answer, a key): the program is looked at now, as it was before the input.
    this.inputSeen = false;
    this.stampAtInput = this.host.runStamp?.() ?? null;
  }

  /**
   * Starts checking `cell` (its code was just written), until {@link InputChecks.stop}.
   *
   * @param now - `performance.now()`, when the caller read it in the same turn (a clock read costs
   * some 1.7k instructions).
   */
  start(cell: InputCheckedCell, now = performance.now()): void {
    this.cell = cell;
    this.lastInputAt = now;
    // The cell's code: its echo usually shows it arrived; only a cell with nothing printed by a check a moment later looks.
    this.inputSeen = false;
    this.stampAtInput = undefined;
    this.blockedSeenAt = undefined;
    // The fork-bomb guard counts this cell's running time (a timer shared with the cell before may tick at once).
    this.ticks = 0;
    this.timer.start();
  }

  /** Stops the checks (the cell released the lock); the timer lapses unless the next cell starts first. */
  stop(): void {
    this.timer.stop();
    this.cell = undefined;
  }

  /** Stops the checks and their timer now (the program exited). */
  dispose(): void {
    this.timer.dispose();
    this.cell = undefined;
  }

  private check(): void {
    const cell = this.cell;
    if (cell === undefined || this.host.pid() === undefined || !cell.running()) return;
    const now = performance.now();
    const quietSince = Math.max(this.output.lastOutputAt, this.lastInputAt);
    const quietMs = now - quietSince;
    if (
      !this.inputSeen &&
      this.stampAtInput === undefined &&
      this.output.lastOutputAt <= this.lastInputAt &&
      now - this.lastInputAt >= ECHO_WAIT_MS
    )
      this.stampAtInput = this.host.runStamp?.() ?? null;
    // The program is looked at from one check before the quiet is long enough: see below.
    if (quietMs < INPUT_QUIET_MS - INPUT_CHECK_MS) {
      this.blockedSeenAt = undefined;
      return;
    }
    // A cell over ssh or in a container: the local foreground (ssh) says nothing about the far program.
    const local = this.detector.interruptByKey?.() !== true;
    const blocked = (local ? this.host.waitingForInput() : undefined) ?? quietMs >= INPUT_FALLBACK_QUIET_MS;
    if (!blocked) {
      this.blockedSeenAt = undefined;
      return;
    }
    // Seen blocked on two checks in a row with nothing printed or typed between: a program that blocked
    // just now (a shell back at its prompt after a long quiet command) may have output still on its way
    // through the kernel's terminal buffers, late under load; by the next check it has arrived.
    const seenAt = this.blockedSeenAt;
    if (seenAt === undefined || seenAt < quietSince) {
      this.blockedSeenAt = now;
      return;
    }
    if (quietMs < INPUT_QUIET_MS) return;
    if (local && quietMs < INPUT_FALLBACK_QUIET_MS && !this.typedInputArrived()) return;
    // The program may have printed its prompt (the frame's end) just before it blocked: let the event
    // loop read what the terminal holds first; anything new means it was not waiting on the cell's behalf.
    const outputAt = this.output.lastOutputAt;
    const stillWaiting = (): boolean => cell.running() && this.output.lastOutputAt === outputAt;
    setImmediate(() => {
      if (!stillWaiting()) return;
      setImmediate(() => {
        if (stillWaiting()) cell.awaitingInput();
      });
    });
  }

  /**
   * Whether the input typed last in the running cell (its code, or what was typed into it since) was
   * seen to reach the program (see below); `true` between cells. Detectors ask it through
   * `DetectorIo.inputArrived` before they take a quiet program blocked reading for one at its prompt.
   */
  inputArrived(): boolean {
    return this.cell === undefined || this.typedInputArrived();
  }

  /**
   * Whether the input typed last reached the program. Linux hands what is written to the terminal
   * over from a work queue (flush_to_ldisc), which under load runs late (300-480 ms seen), while the
   * program sleeps in the wait it was in before the input: an answered question looks unanswered.
   * It arrived once the program printed since (its echo), or ran since (it woke up to read; a
   * program entering its next read takes in what waits); until then only the longer quiet says it
   * waits. Where the program's runs cannot be seen, it is taken as arrived.
   */
  private typedInputArrived(): boolean {
    if (this.inputSeen) return true;
    if (this.output.lastOutputAt > this.lastInputAt || this.stampAtInput === null) return (this.inputSeen = true);
    const stamp = this.host.runStamp?.();
    if (stamp === undefined) return (this.inputSeen = true);
    // Not looked at before: from now on (it may have run already; then it waits for the longer quiet).
    if (this.stampAtInput === undefined) {
      this.stampAtInput = stamp;
      return false;
    }
    return (this.inputSeen = stamp !== this.stampAtInput);
  }
}
