import type { ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { describeValue, invalidArgument } from "../errors.js";
import { childProcess } from "../internal/builtins.js";
import { isExecutable } from "../pty/environment.js";
import { optionalPositive, optionsObject } from "../validate.js";
import type { DetectorInput, DetectorIo, FrameDetector, FrameEnd, Verdict } from "./types.js";
import { frameEnd } from "./verdict.js";

/** Decides, line by line, whether the program is waiting again. */
export type HookFunction = (line: string) => boolean | Promise<boolean>;

/** Options of `detectors.hook()`. */
export interface HookOptions {
  /**
   * How long output must pause before the unfinished last line (a prompt
   * without a newline) is handed to the hook.
   * @default 50
   */
  readonly partialDelayMs?: number;
}

/**
 * The frame ends when a hook says so. A function is called with each
 * clean, trimmed line and returns `true` (or a promise of it) on the line
 * that shows the program is waiting. An executable path is started once per
 * cell and fed the lines on stdin; its exit ends the frame. The unfinished
 * last line is handed over once output pauses; the line that ended the
 * frame is not part of the output.
 *
 * @example
 * ```ts
 * detectors.hook((line) => line.endsWith("ready>"));
 * detectors.hook("./wait-for-prompt.sh");
 * ```
 */
export function hook(decider: HookFunction | string, options: HookOptions = {}): FrameDetector {
  const given = optionsObject(options, ["partialDelayMs"], "hook() options");
  const partialDelayMs = optionalPositive(given["partialDelayMs"], "partialDelayMs", { allowZero: true }) ?? 50;
  if (typeof decider === "function") return new FunctionHook(decider, partialDelayMs);
  if (typeof decider === "string") return new ExecutableHook(checkExecutable(decider), partialDelayMs);
  throw invalidArgument(`Expected the hook to be a function or an executable's path, got ${describeValue(decider)}`);
}

function checkExecutable(path: string): string {
  const absolute = resolve(path);
  if (!isExecutable(absolute)) {
    throw invalidArgument(`Expected the hook \`${path}\` to be an executable file; check the path and run chmod +x`);
  }
  return absolute;
}

/** Quiet time after which a program under an executable hook counts as started. */
const READY_QUIET_MS = 200;

/** Shared by both hooks: lines in, partial lines after a pause. */
abstract class LineHook implements FrameDetector {
  abstract readonly name: string;
  protected io: DetectorIo | undefined;
  readonly #partialDelayMs: number;
  /** Counts frames (one per cell): a late decision ends only the frame it was asked in. */
  #frame = 0;
  #partialTimer: NodeJS.Timeout | undefined;

  constructor(partialDelayMs: number) {
    this.#partialDelayMs = partialDelayMs;
  }

  attach(io: DetectorIo): void {
    this.io = io;
    this.startFrame();
  }

  encode(code: string): string {
    this.#cancelPartial();
    this.#frame++;
    this.startFrame();
    return `${code.replace(/\n/g, "\r")}\r`;
  }

  feed(event: DetectorInput): Verdict | undefined {
    if (!("line" in event)) return undefined;
    this.#cancelPartial();
    const line = event.line.trim();
    if (!event.partial) return this.onLine(line, true);
    this.#partialTimer = setTimeout(() => {
      this.#partialTimer = undefined;
      const verdict = this.onLine(line, false);
      if (verdict?.kind === "end") this.io?.endFrame(verdict);
    }, this.#partialDelayMs);
    return undefined;
  }

  /** A decision reached later: it ends the frame it was asked in (through `io.endFrame`), never a later one. */
  protected later(decision: Promise<FrameEnd | undefined>): void {
    const frame = this.#frame;
    decision.then(
      (end) => {
        if (end !== undefined && frame === this.#frame) this.io?.endFrame(end);
      },
      (error: unknown) => this.io?.reportError?.(error),
    );
  }

  #cancelPartial(): void {
    if (this.#partialTimer !== undefined) clearTimeout(this.#partialTimer);
    this.#partialTimer = undefined;
  }

  dispose(): void {
    this.#cancelPartial();
  }

  protected abstract startFrame(): void;
  protected abstract onLine(line: string, complete: boolean): Verdict | undefined;
}

class FunctionHook extends LineHook {
  readonly name = "hook";
  readonly #decide: HookFunction;

  constructor(decide: HookFunction, partialDelayMs: number) {
    super(partialDelayMs);
    this.#decide = decide;
  }

  protected startFrame(): void {}

  protected onLine(line: string, complete: boolean): Verdict | undefined {
    const end = complete ? { dropLines: 1 } : {};
    const verdict = this.#decide(line);
    if (typeof verdict === "boolean") return verdict ? frameEnd(end) : undefined;
    this.later(Promise.resolve(verdict).then((done) => (done ? end : undefined)));
    return undefined;
  }
}

class ExecutableHook extends LineHook {
  readonly name = "hook";
  readonly #path: string;
  #child: ChildProcess | undefined;
  #lastWasComplete = false;
  /** Until the first cell: the program is ready once quiet (and reading, where /proc tells). */
  #readyTimer: NodeJS.Timeout | undefined;
  #starting = true;

  constructor(path: string, partialDelayMs: number) {
    super(partialDelayMs);
    this.#path = path;
  }

  // The hook runs per cell only, as the original's: one written to recognise a cell's output (exit on
  // a line it prints) would otherwise never end the start-up frame.
  override attach(io: DetectorIo): void {
    this.io = io;
    this.#armReady();
  }

  override encode(code: string): string {
    this.#starting = false;
    this.#clearReady();
    return super.encode(code);
  }

  override feed(event: DetectorInput): Verdict | undefined {
    if (this.#starting) {
      this.#armReady();
      return undefined;
    }
    return super.feed(event);
  }

  #armReady(): void {
    this.#clearReady();
    this.#readyTimer = setTimeout(() => {
      this.#readyTimer = undefined;
      if (!this.#starting) return;
      if (this.io?.waitingForInput() === false) return this.#armReady();
      this.#starting = false;
      this.io?.endFrame({});
    }, READY_QUIET_MS);
  }

  #clearReady(): void {
    if (this.#readyTimer !== undefined) clearTimeout(this.#readyTimer);
    this.#readyTimer = undefined;
  }

  protected startFrame(): void {
    this.#stopChild();
    this.#lastWasComplete = false;
    const child = childProcess().spawn(this.#path, [], { stdio: ["pipe", "ignore", "ignore"] });
    this.#child = child;
    child.stdin?.on("error", () => {});
    const finish = () => {
      if (this.#child !== child) return;
      this.#child = undefined;
      this.io?.endFrame(this.#lastWasComplete ? { dropLines: 1 } : {});
    };
    child.once("exit", finish);
    child.once("error", finish);
  }

  protected onLine(line: string, complete: boolean): Verdict | undefined {
    this.#lastWasComplete = complete;
    const stdin = this.#child?.stdin;
    if (stdin !== undefined && stdin !== null && stdin.writable) stdin.write(`${line}\n`);
    return undefined;
  }

  #stopChild(): void {
    const child = this.#child;
    this.#child = undefined;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }

  override dispose(): void {
    super.dispose();
    this.#clearReady();
    this.#stopChild();
  }
}
