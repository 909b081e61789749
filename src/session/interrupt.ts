import type { FrameDetector } from "../detect/types.js";
import type { ProgramOutput } from "./input-checks.js";
import { settleWithin } from "../internal/settle-within.js";
import { isLinuxProcAvailable, readForeground } from "../pty/proc-state.js";

/** How long an interrupt waits for the prompt before settling the cell (the lock stays held). */
const INTERRUPT_GRACE_MS = 3_000;
/** How long `interrupt({ force: true })` waits for the prompt before it releases the lock anyway. */
const INTERRUPT_FORCE_GRACE_MS = 1_000;
/**
 * Over ssh (a typed Ctrl-C): how long after the first one it is typed again while the prompt does not
 * come back; each later one waits twice as long as the one before.
 */
const REMOTE_INTERRUPT_RESEND_MS = 300;
/** Over ssh: the quiet after an interrupt before the next cell is typed (a Ctrl-C typed again may still be on its way). */
const REMOTE_INTERRUPT_SETTLE_MS = 150;
/** How often a Ctrl-C is sent again while the prompt does not come back. */
const INTERRUPT_RESEND_MS = 250;
/**
 * After a Ctrl-C, how long the program must stay quiet (and be seen reading) before the next cell is
 * typed: a Ctrl-C that reached a shell at its prompt makes it redraw, and keys typed meanwhile are lost.
 */
const INTERRUPT_SETTLE_MS = 20;
/** The longest wait for that quiet: a program that keeps printing does not hold the next cell for ever. */
const INTERRUPT_SETTLE_MAX_MS = 1_000;
/** How long an interrupt watches a shell in the foreground come back to its prompt before taking it for a builtin to Ctrl-C. */
const SHELL_PROMPT_WAIT_MS = 50;
/**
 * After the grace, the longest look for a program that keeps running to be seen waiting for input: it may still
 * be taking in the last Ctrl-C (printing its answer to it and its prompt again; slow under load).
 */
const READING_LOOK_MAX_MS = 2_000;
/** How often that look is taken. */
const READING_LOOK_EVERY_MS = 20;

/** What an interrupt asks of the session: the terminal and the program. */
export interface InterruptHost {
  /** Writes to the terminal (a Ctrl-C, the detector's keys). */
  write(data: string): void;
  /** The program's process id, `undefined` when it has none. */
  pid(): number | undefined;
  /** Whether the program exited. */
  exited(): boolean;
  /** Whether `close()` was called. */
  closing(): boolean;
  /** Whether the program's foreground process is blocked reading the terminal (`undefined`: cannot tell here). */
  waitingForInput(): boolean | undefined;
  /**
   * Whether the program's foreground is running (or about to), or blocked reading the terminal: not
   * asleep in some other wait. `false` (or no method): cannot tell here.
   */
  foregroundActive?(): boolean;
}

/** How a stopped cell is told: whether it still holds the lock, and a promise that settles once it released it. */
export interface InterruptTarget {
  /** Whether the cell still holds the lock (checked before each key sent again). */
  holdsLock(): boolean;
  /** Called once the first Ctrl-C was sent: settles when the cell released the lock (its prompt came back). */
  released(): Promise<void>;
}

/** Output added to a cell released without its prompt: the program was seen reading the terminal. */
export const RELEASED_READING_NOTE =
  "[agent-tty: no prompt this session knows came back after Ctrl-C, but the program is waiting for input: the session was released]";
/** Output added to a cell released by `interrupt({ force: true })` without its prompt. */
export const RELEASED_FORCED_NOTE =
  "[agent-tty: interrupt({ force: true }) released the session; the program was not seen waiting for input, so the next cell may be typed into a running command]";

/**
 * How a cell is interrupted: Ctrl-C (or the detector's key) until its prompt
 * comes back, when the lock may be released without that prompt, and the
 * quiet the program needs after a Ctrl-C before the next cell is typed.
 *
 * A Ctrl-C can be lost (a child between fork and exec), so a plain one is
 * sent again until the prompt is back. Under a shell with marks (Linux) the
 * foreground job gets SIGINT itself (see {@link Interrupter.stop}); over ssh
 * or in a container the Ctrl-C is typed. It never settles a cell: the cell
 * lifecycle does, with what {@link Interrupter.stop} resolves.
 *
 * Members TypeScript-`private`, not `#private` (see `CellLifecycle`: cheaper on every cell's path).
 *
 * @internal
 */
export class Interrupter {
  private readonly detector: FrameDetector;
  private readonly host: InterruptHost;
  private readonly output: ProgramOutput;
  /** When a Ctrl-C of an interrupt was last written, until the cell it stopped is released. */
  private sentAt: number | undefined;
  /** While set, the program is still taking in an interrupt: the next cell is held (see INTERRUPT_SETTLE_MS). */
  private pendingSettle: Promise<void> | undefined;

  constructor(detector: FrameDetector, host: InterruptHost, output: ProgramOutput) {
    this.detector = detector;
    this.host = host;
    this.output = output;
  }

  /** Whether the program is still taking in an interrupt's Ctrl-C: the next cell waits for {@link Interrupter.cellReleased}'s call. */
  get settling(): boolean {
    return this.pendingSettle !== undefined;
  }

  /**
   * Interrupts the cell until it releases the lock or the grace (3 s, 1 s with `force`) runs out.
   * A program that never shows a prompt its detector knows keeps the lock, unless it is seen blocked
   * reading the terminal (the safe moment: the next cell is typed to a program waiting for it) or
   * `force` is given.
   *
   * @returns the note to add to the cell's output when it is to be released without its prompt;
   * `undefined` when it was released by its prompt, or is to keep the lock.
   */
  async stop(target: InterruptTarget, force: boolean): Promise<string | undefined> {
    const sequence = this.detector.interruptSequence?.() ?? "\x03";
    // A cell over ssh (or in a container) is interrupted by typing: the local foreground job is ssh itself.
    const byKey = sequence !== "\x03" || this.detector.interruptByKey?.() === true;
    if (!byKey) await this.interruptShellJob(target);
    else this.type(sequence);
    let resend: NodeJS.Timeout | undefined = !byKey
      ? setInterval(() => void this.interruptShellJob(target), INTERRUPT_RESEND_MS)
      : undefined;
    if (byKey && sequence === "\x03") {
      // Over ssh a Ctrl-C can be lost too (the far command between fork and exec): typed again, rarely,
      // as a round trip may still be bringing the prompt back. Ever more rarely: nothing here tells a
      // lost one from one the far shell took (it prints its newline either way), and a Ctrl-C that
      // reaches the shell while it runs its prompt commands (pyenv's hook, a git prompt; slow under
      // load) cuts them short and the shell starts its prompt over: typed every 300 ms, the prompt
      // never came back.
      let delayMs = REMOTE_INTERRUPT_RESEND_MS;
      const again = (): void => {
        if (!target.holdsLock() || this.host.exited()) return;
        this.type(sequence);
        delayMs *= 2;
        resend = setTimeout(again, delayMs);
      };
      resend = setTimeout(again, delayMs);
    }
    await settleWithin(target.released(), force ? INTERRUPT_FORCE_GRACE_MS : INTERRUPT_GRACE_MS, undefined);
    clearTimeout(resend);
    if (!target.holdsLock()) return undefined;
    // Over ssh the local ssh always looks like it reads: only force releases a remote cell. With force it is
    // released anyway (one look chooses the note).
    const reading =
      this.detector.interruptByKey?.() !== true && (force ? this.host.waitingForInput() === true : await this.seenReading(target));
    if (!target.holdsLock()) return undefined;
    if (reading) return RELEASED_READING_NOTE;
    return force ? RELEASED_FORCED_NOTE : undefined;
  }

  /**
   * Whether the program is seen blocked reading the terminal once no more Ctrl-C is sent. One look is not
   * enough: a Ctrl-C was sent at most 250 ms before, and a program taking it in (python printing
   * `KeyboardInterrupt` and its prompt again) runs meanwhile, or has printed what was not read yet; under
   * load that takes hundreds of ms. So it is looked at again while it runs, for at most 2 s; a
   * program asleep elsewhere (in a `sleep`, waiting for a child or the network) is not waited for.
   */
  private async seenReading(target: InterruptTarget): Promise<boolean> {
    const deadline = performance.now() + READING_LOOK_MAX_MS;
    for (;;) {
      const waiting = this.host.waitingForInput();
      if (waiting === true) return true;
      if (waiting === undefined || !target.holdsLock() || this.host.exited() || this.host.closing()) return false;
      // Asleep outside the terminal: busy with something else, not taking in a Ctrl-C. (Reading, but what it
      // printed not read yet: it is, and the next look finds that read.)
      if (this.host.foregroundActive?.() !== true || performance.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, READING_LOOK_EVERY_MS));
    }
  }

  /**
   * The cell an interrupt stopped released the lock: when a Ctrl-C was sent, the next cell waits until
   * the program has taken it in (quiet for a moment since both the Ctrl-C and its last output, and
   * reading the terminal where that can be told), then `ready` is called. Without a Ctrl-C, nothing.
   *
   * Over ssh, released by its prompt, an empty line is typed after the clear key: a Ctrl-C typed
   * again may reach the far shell at that prompt, the clear key right behind it, and bash (5.2, seen
   * over ssh with a prompt command such as pyenv's hook) then often takes the Ctrl-C only halfway: it
   * acts on it once it has accepted the next line and read its first character, which the next
   * command then lacks (`cho: command not found`). An empty line takes that instead (or draws a
   * prompt again).
   *
   * @param byPrompt - whether the cell was released by its prompt (not by `force`, nor as waiting
   * for input).
   * @returns whether a line was typed: the next cell must then wait for its prompt.
   */
  cellReleased(ready: () => void, byPrompt = false): boolean {
    const sentAt = this.sentAt;
    // No interrupt was sent (most cells): nothing more here. The rest is apart so that this path makes
    // no closure context (its variables are captured by the wait below): ~130 bytes a cell.
    if (sentAt === undefined) return false;
    this.sentAt = undefined;
    return this.settleAfterRelease(ready, byPrompt, sentAt);
  }

  private settleAfterRelease(ready: () => void, byPrompt: boolean, interruptSentAt: number): boolean {
    let sentAt = interruptSentAt;
    const remote = this.detector.interruptByKey?.() === true;
    const clear = this.detector.clearLineSequence?.();
    const line = remote && byPrompt && clear !== undefined && clear !== "" && this.detector.tracksPrompt === true;
    if (clear !== undefined && !this.host.exited()) {
      this.host.write(line ? `${clear}\r` : clear);
      sentAt = performance.now();
    }
    const settleMs = remote ? REMOTE_INTERRUPT_SETTLE_MS : INTERRUPT_SETTLE_MS;
    const settling = (async () => {
      const deadline = performance.now() + INTERRUPT_SETTLE_MAX_MS;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, INTERRUPT_SETTLE_MS));
        // Over ssh a Ctrl-C still on its way (typed again just before the prompt came back) lands a round trip later.
        const now = performance.now();
        if (now >= deadline || this.host.exited() || this.host.closing()) return;
        if (now - Math.max(this.output.lastOutputAt, sentAt) >= settleMs && (remote || this.host.waitingForInput() !== false)) return;
      }
    })();
    this.pendingSettle = settling;
    void settling.then(() => {
      if (this.pendingSettle !== settling) return;
      this.pendingSettle = undefined;
      ready();
    });
    return line;
  }

  private type(sequence: string): void {
    this.sentAt = performance.now();
    this.host.write(sequence);
  }

  /**
   * Ctrl-C for the cell's command. The terminal turns a written Ctrl-C into SIGINT only a moment later,
   * for whichever process group is in the foreground by then: a command ending at that moment leaves it
   * to the shell at its prompt, where it eats the start of the next cell. So under a shell with marks
   * (Linux), a job in the foreground gets SIGINT itself, and the shell only when it runs the command
   * itself (a builtin loop), not when it is back at its prompt.
   */
  private async interruptShellJob(target: InterruptTarget): Promise<void> {
    const pid = this.host.pid();
    if (pid === undefined || this.detector.markPrefix === undefined || !isLinuxProcAvailable()) {
      this.type("\x03");
      return;
    }
    const deadline = performance.now() + SHELL_PROMPT_WAIT_MS;
    for (;;) {
      if (!target.holdsLock() || this.host.exited()) return;
      const foreground = readForeground(pid);
      if (foreground !== undefined && foreground.pgid !== pid) {
        try {
          process.kill(-foreground.pgid, "SIGINT");
        } catch {
          // The job ended meanwhile: its prompt is on its way.
        }
        return;
      }
      // The shell itself: back at its prompt (nothing to interrupt), or running a builtin.
      if (foreground?.blockedOnTerminal === true) return;
      if (performance.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    this.type("\x03");
  }
}
