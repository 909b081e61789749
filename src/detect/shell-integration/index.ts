import { basename } from "node:path";
import { invalidArgument } from "../../errors.js";
import { NOTHING, own } from "../../internal/empty-set.js";
import { LapsingInterval } from "../../internal/lapsing-interval.js";
import { randomBytes, randomText } from "../../internal/random.js";
import { PrivateFiles } from "../../internal/private-temp-dir.js";
import { optionalBoolean, optionsObject } from "../../validate.js";
import { replDetector, replDetectorForPrompt } from "../auto.js";
import { PromptConfirmer } from "../confirm.js";
import { classifyNested, REMOTE_PROGRAMS, type LeftProgram, type NestedProgram } from "../nested.js";
import type { DetectorInput, DetectorIo, FeedResult, FrameDetector, FrameEnd, SpawnPlan, Verdict } from "../types.js";
import { ECHO, frameEnd, OUTPUT_END, OUTPUT_START, outputEnd, toVerdict } from "../verdict.js";
import { clearKeyOf, installShell, integratedShell, INTEGRATED_SHELLS, marksOf, TTY_KILL, type Shell } from "./shells.js";

export { integratedShell, INTEGRATED_SHELLS } from "./shells.js";

/** The OSC number of agent-tty's marks; terminals ignore it. */
const OSC = "6973";

/** Output of a cell the shell could not run because it was incomplete. */
export const INCOMPLETE_CELL_MESSAGE =
  "agent-tty: the cell is incomplete (an unclosed quote, block or heredoc) and was cancelled; fix it and run it again";
const INCOMPLETE = outputEnd(INCOMPLETE_CELL_MESSAGE);

/** Longest cell typed rather than pasted (a line editor redraws as it types). */
const TYPED_CELL_MAX_CHARS = 512;
/** How long fish must sit reading, with nothing new on the terminal, before a cell counts as incomplete. */
const INCOMPLETE_QUIET_MS = 200;
const INCOMPLETE_CHECK_MS = 50;
/** Printable ASCII only: nothing a line editor binds to a command. */
const PLAIN_LINE = /^[\x20-\x7e]*$/;

/** Options of `detectors.shellIntegration()`. */
export interface ShellIntegrationOptions {
  /**
   * Install the marks by typing them at the program's first prompt instead of through the shell's
   * start-up files: for a shell on the far side of `ssh`, `docker exec`, `kubectl exec` or any other
   * program whose start-up files cannot be given. The shell that answers (bash, zsh, fish, sh/dash)
   * is detected. `"auto"` turns it on for `ssh host`, `docker`/`podman exec -it` and `kubectl exec -it`.
   * @default false
   */
  readonly inBand?: boolean;
  /**
   * Follow interactive programs a cell starts (a sub-shell, ssh, `su`, a REPL): the cell settles once
   * the program shows its prompt, with `CellResult.nested` naming it, and the next cells go to it.
   * @default true
   */
  readonly nested?: boolean;
}

/** How long the first prompt must stay quiet before the in-band bootstrap is typed. */
const BOOT_QUIET_MS = 150;
/** Typed anyway when the program printed nothing for this long (a shell with an empty prompt). */
const BOOT_SILENT_MS = 3_000;
/** How often the bootstrap checks whether the probe can be typed. */
const BOOT_CHECK_MS = 50;
/** A probe no shell answered within this long is typed again (at most MAX_PROBES times in all). */
const PROBE_RETRY_MS = 2_500;
const MAX_PROBES = 3;
/** How a shell's prompt ends (`$ `, `# `, `% `, `> `, `❯ `, `» `, `λ `; escaped: a non-ASCII character makes V8 hold the whole module's source at two bytes a character): the probe is typed at once at such a line, after BOOT_SILENT_MS at others. */
const SHELL_PROMPT_END = /[$#%>\u276f\u00bb\u03bb] ?$/;
/** A password, passphrase or code asked for, or a question (ssh's host key check): never answered with the probe. */
const ASKS_SECRET_OR_QUESTION = /(password|passphrase|passcode|pass code|verification code|token|\bpin\b|otp)[^\n]*: ?$|\? ?$|\(yes\/no/i;
/** How long a cell's foreground program must stay quiet, reading, before it counts as a nested program. */
const NESTED_QUIET_MS = 200;
const NESTED_CHECK_MS = 100;
/** Inside ssh: how long a cell's output must stop at a prompt-like line before it is taken for a nested program's. */
const REMOTE_NESTED_QUIET_MS = 400;
/** What a shell's prompt ends with, for a program started inside ssh (its process cannot be seen). */
const REMOTE_SHELL_PROMPT = /[$#%] $/;
/** Over a connection: the quiet that stands for "the far program reads its terminal". */
const REMOTE_QUIET_MS = 80;
/** fish over a connection: the wait before a cell with no command started counts as incomplete. */
const REMOTE_INCOMPLETE_QUIET_MS = 1_000;

/** One program the cells go to: the session's own (index 0) or a nested one. */
interface Level {
  /** Put between the secret and the mark's kind: "" for the session's program, "N:" at depth N. */
  readonly tag: string;
  shell: Shell;
  clear: string | undefined;
  /** Frames a nested REPL. */
  readonly repl?: FrameDetector;
  readonly program?: NestedProgram;
  readonly remote: boolean;
  /** The shell's working directory as it last said (bash's W mark, the other shells' status marks). */
  cwd?: string | undefined;
}

/** A REPL seen in the foreground of a cell, its prompt not yet confirmed. */
interface ReplCandidate {
  readonly pid: number;
  readonly detector: FrameDetector;
  readonly program: NestedProgram;
  /** The last unfinished line shown to its prompt detector. */
  fedPartial: string;
}

/** The in-band bootstrap under way: the probe (which shell answers?), then the marks. */
interface Boot {
  readonly depth: number;
  stage: "probe" | "install";
  readonly program?: Omit<NestedProgram, "shell">;
  /** Nested: the cell's output stops here (the next feed says so). */
  hide: boolean;
  /** The foreground program is the shell itself: any prompt will do (else only one that looks like a shell's). */
  readonly anyPrompt: boolean;
  /** How many probes were typed, the last one when. */
  probes: number;
  probedAt: number;
  cwd?: string;
}

/**
 * Frame detection by the shell's own hooks. The shell is started with an
 * private init file of ours (bash `--rcfile`, zsh `ZDOTDIR`, fish `--init-command source`)
 * that still loads the user's own configuration, and prints invisible OSC
 * marks carrying a per-session secret: output starts (before each command),
 * exit status and working directory (when the prompt is drawn), prompt
 * drawn (ready). Output or an echoed command cannot fake a frame end: they
 * do not know the secret. A short one-line cell is typed; others are sent
 * as one bracketed paste, so multi-line cells (loops, heredocs, functions)
 * run as one unit. An incomplete cell (continuation prompt; for fish, a
 * shell that waits with nothing started) is cancelled with Ctrl-C and
 * reported. See the README for everything the init file changes.
 *
 * With `{ inBand: true }` the same marks are typed at the program's first
 * prompt (a shell over ssh or in a container), after a probe line that asks
 * which shell answers; the bootstrap never reaches the transcript or a cell's
 * output. A cell that starts an interactive program (a sub-shell, ssh, `su`,
 * python) settles once that program waits at its prompt, with
 * `CellResult.nested`; the next cells go to it (shell integration typed
 * in-band for shells, the prompt detector for REPLs) until it ends.
 *
 * @example
 * ```ts
 * await Session.spawn({ command: "ssh", args: ["-tt", "me@host"], detector: detectors.shellIntegration({ inBand: true }) });
 * ```
 */
export function shellIntegration(options?: ShellIntegrationOptions): FrameDetector {
  // No options (most calls): the defaults, with nothing to check.
  if (options === undefined) return new ShellIntegrationDetector(false, true);
  const given = optionsObject(options, SHELL_INTEGRATION_OPTIONS, "shellIntegration() options");
  return new ShellIntegrationDetector(
    optionalBoolean(given["inBand"], "inBand") ?? false,
    optionalBoolean(given["nested"], "nested") ?? true,
  );
}

const SHELL_INTEGRATION_OPTIONS: readonly string[] = ["inBand", "nested"];

class ShellIntegrationDetector implements FrameDetector {
  readonly name = "shell-integration";
  readonly removesEcho = true;
  readonly tracksPrompt = true;
  readonly markPrefix: string;
  // 96 random bits, in base64url: every byte of a mark is work for the shell on each prompt (bash's
  // line editor scans its prompt once per character), so the secret is written in 16 characters, not 24.
  readonly #secret = randomText(12, "base64url");
  private readonly inBand: boolean;
  private readonly followNested: boolean;
  /** The shell's start-up files (they hold the secret): removed once its first prompt shows they were read. */
  private startupFiles: PrivateFiles | undefined;
  private readonly levels: Level[];
  /** The last of {@link levels} (see {@link setTop}). */
  private top: Level;
  private boot: Boot | undefined;
  /** The cell's code, trimmed, when it is one line ("" when blank; most cells): no list is made for it. */
  private codeLine = "";
  /** The cell's non-blank lines, trimmed, when it has several. */
  private codeLines: string[] | undefined;
  private io: DetectorIo | undefined;
  private outputStarted = false;
  private incomplete = false;
  /** The cell is written but the shell has not accepted its line yet (no newline, no mark since). */
  private typing = false;
  /** The cell is written and no command of it has started (no C mark yet). */
  private awaitingStart = false;
  /** The pending end came without a command before it: it counts once the prompt stays. */
  private tentative = false;
  // A prompt that stays: the one after a pasted cell may be a redraw before its Enter reaches the shell.
  private readonly confirmer = new PromptConfirmer(() => this.levelIo, { lingering: true });
  private incompleteWatch: NodeJS.Timeout | undefined;
  private lastFedAt = 0;
  /** The end a status mark announced, already the verdict that ends the frame (most cells: handed on as it is). */
  private pendingEnd: (FrameEnd & { readonly kind: "end" }) | undefined;
  /** Nested programs that ended during the cell (innermost first), reported with its end. */
  private left: LeftProgram[] = [];
  /** A REPL level's cell: its first complete line (the echo) has been seen. */
  private replOutputStarted = false;
  /** While a cell runs: its foreground checked for a nested program (one timer for back-to-back cells). */
  private readonly nestedWatch = new LapsingInterval(
    NESTED_CHECK_MS,
    () => {
      if (this.io !== undefined) this.checkNested(this.io);
    },
    { unref: true },
  );
  /** Foreground programs of this cell that are not nested programs we can frame. */
  private notNested: Set<number> = NOTHING;
  /** A REPL seen in the foreground, waiting for its prompt to be confirmed. */
  private replCandidate: ReplCandidate | undefined;
  private partialLine = "";
  /** Inside a remote level: the last unfinished line already judged for a nested program. */
  private remoteTried = "";
  private bootWatch: NodeJS.Timeout | undefined;
  /** bash's prompt is drawn, and this step not taken yet (see {@link readyAfterChunk}). */
  private readyStep: (() => Verdict | undefined) | undefined;
  // Made once, not per cell: the prompt's ready step, and taking it at the end of the chunk.
  private readonly onReadyStep = (): Verdict | undefined => this.onReady();
  private readonly takeReadyStepLater = (): void => this.takeReadyStep();
  /** The session calls {@link endOfChunk} after every chunk (it did once): no microtask is needed to wait for the chunk's end. */
  private toldChunkEnds = false;
  /** The session tells when each chunk came before feeding it (see {@link startOfChunk}): a raw feed reads no clock. */
  private toldChunkTimes = false;
  private disposed = false;
  /**
   * bash's line editor holds an empty line: the last cell was a plain line typed into the local bash
   * (no nesting) that ran a command (its start mark came) and came back to the prompt, and nothing
   * but that cell was written to the terminal since it was typed. The next cell is then typed
   * without the clear key (2 reads and 3k instructions less for bash a cell). Anything else (the
   * first cell, input typed by anyone, a query's answer, an interrupt, a cell that ran nothing, as
   * when `histverify` puts the line back to be edited) leaves it false until such a cell again.
   * Only where the session tells what it writes (see {@link inputWritten}).
   */
  private lineEmpty = false;
  /** The bytes of the cell being typed that may leave the line empty, until the session writes them. */
  private cellBytes: string | undefined;
  /** Since the cell was typed, nothing else was written to the terminal. */
  private cellInputOnly = false;
  /** The session tells every write to the terminal (see {@link inputWritten}): it did once. */
  private toldInput = false;

  constructor(inBand: boolean, followNested: boolean) {
    this.markPrefix = `${OSC};${this.#secret};`;
    this.inBand = inBand;
    this.followNested = followNested;
    this.levels = [{ tag: "", shell: "bash", clear: clearKeyOf("bash"), remote: inBand }];
    this.top = this.levels[0] as Level;
  }

  /**
   * The terminal as the current level sees it: for a program on the far side of ssh (or in a
   * container) nobody here can tell whether it reads (the local foreground is ssh, or with
   * ControlMaster not even that), so a moment of quiet stands for it.
   */
  private readonly levelIo: DetectorIo = {
    write: (data) => this.io?.write(data),
    endFrame: (end) => this.io?.endFrame(end),
    waitingForInput: () => (this.top.remote ? performance.now() - this.lastFedAt >= REMOTE_QUIET_MS : this.io?.waitingForInput()),
  };

  /** The program the cells go to now: the last of {@link levels}, kept at hand (looked up several times a cell). */
  private setTop(): void {
    this.top = this.levels[this.levels.length - 1] as Level;
    // Another program now reads the terminal: nothing is known of its line.
    this.lineEmpty = false;
    this.cellInputOnly = false;
  }

  setup(plan: SpawnPlan): SpawnPlan {
    if (this.inBand) return plan; // the shell is elsewhere: the marks are typed at its first prompt
    const shell = integratedShell(plan.command);
    if (shell === undefined) {
      throw invalidArgument(
        `shellIntegration() supports ${INTEGRATED_SHELLS.join(", ")}, not \`${plan.command}\`; use shellIntegration({ inBand: true }) for a shell it reaches (ssh, docker exec), detectors.prompt() or detectors.repeatEnter()`,
      );
    }
    const base = this.levels[0] as Level;
    base.shell = shell;
    base.clear = clearKeyOf(shell, plan.args);
    // Every shell reads the marks (and so the secret) from a private file of ours, never from its
    // command line, which any process can read.
    this.startupFiles = new PrivateFiles();
    try {
      return installShell(shell, plan, this.startupFiles, this.markPrefix);
    } catch (error) {
      this.removeStartupFiles();
      throw error;
    }
  }

  attach(io: DetectorIo): void {
    this.io = io;
    if (!this.inBand) return;
    // In-band: the probe is typed once the program's first prompt is there.
    this.lastFedAt = performance.now();
    this.startBoot(0, undefined);
  }

  private stopBootWatch(): void {
    if (this.bootWatch !== undefined) clearInterval(this.bootWatch);
    this.bootWatch = undefined;
  }

  clearLineSequence(): string {
    return this.top.repl === undefined ? (this.top.clear ?? "") : "";
  }

  interruptByKey(): boolean {
    return this.top.remote;
  }

  nestedStack(): readonly NestedProgram[] {
    return this.levels.slice(1).map((level) => level.program as NestedProgram);
  }

  interruptSequence(): string {
    return this.top.repl?.interruptSequence?.() ?? "\x03";
  }

  encode(code: string): string {
    const lineEmpty = this.lineEmpty;
    this.lineEmpty = false;
    this.cellInputOnly = false;
    this.cellBytes = undefined;
    // Printable ASCII (most cells) holds no line end.
    const plainLine = PLAIN_LINE.test(code);
    if (!plainLine && code.includes("\n")) {
      this.codeLines = code
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "");
      this.codeLine = "";
    } else {
      this.codeLines = undefined;
      this.codeLine = code.trim();
    }
    this.outputStarted = false;
    this.incomplete = false;
    this.typing = true;
    this.awaitingStart = true;
    this.tentative = false;
    this.confirmer.cancel();
    this.pendingEnd = undefined;
    // Emptied only when not empty (clearing a Set makes it a new table; most cells leave both empty).
    if (this.left.length > 0) this.left = [];
    if (this.notNested.size > 0) this.notNested.clear();
    this.replCandidate = undefined;
    this.remoteTried = "";
    const top = this.top;
    if (top.repl !== undefined) {
      this.replOutputStarted = false;
      this.awaitingStart = false;
      return top.repl.encode?.(code) ?? `${code}\r`;
    }
    if (this.followNested) this.watchNested();
    if (top.shell === "sh" || top.shell === "dash") {
      // No line editor and no paste mode: the cell is read whole as a quoted heredoc, then run as one
      // unit. Ctrl-U first drops whatever was typed ahead since the prompt.
      const end = `AGENT_TTY_${randomBytes(6).toString("hex")}`;
      return `${TTY_KILL}__agent_tty_start; eval "$(cat <<'${end}'\r${code.replace(/\n/g, "\r")}\r${end}\r)"; __agent_tty_end\r`;
    }
    if (top.shell === "fish") this.watchIncomplete(top.remote ? REMOTE_INCOMPLETE_QUIET_MS : INCOMPLETE_QUIET_MS);
    // The line is cleared first: whatever reached the line editor since the prompt (a terminal's
    // answer to a query nobody read, a stray key) is dropped instead of being run with the cell. Not
    // when the line is known to be empty (see lineEmpty). A short one-line cell is typed; anything
    // else is pasted, so it runs as one unit and no tab completes.
    const clear = lineEmpty ? "" : (top.clear ?? "");
    if (code.length <= TYPED_CELL_MAX_CHARS && plainLine) {
      const bytes = `${clear}${code}\r`;
      if (top.shell === "bash" && top.clear !== TTY_KILL && !top.remote && this.levels.length === 1 && this.toldInput) {
        this.cellBytes = bytes;
      }
      return bytes;
    }
    return `${clear}\x1b[200~${code}\x1b[201~\r`;
  }

  linesNeeded(): number {
    // Once a command's output started, complete lines tell it nothing (marks do) but that the
    // unfinished line is gone: the last one says it. Nested programs and REPLs read every line.
    return this.outputStarted && this.incompleteWatch === undefined && this.boot === undefined && this.top.repl === undefined
      ? 1
      : Infinity;
  }

  feed(event: DetectorInput): Verdict | undefined {
    // One test of the input's shape each: raw, then a mark, then a line.
    if ("raw" in event) {
      // Every chunk of output comes raw first (its lines and marks follow): when the program last printed
      // (the session told the time the chunk came, see `startOfChunk`, once it did that once).
      if (!this.toldChunkTimes) this.lastFedAt = performance.now();
      return this.feedRaw();
    }
    if ("mark" in event) return this.feedMark(event.mark);
    return this.feedLine(event.line, event.partial);
  }

  /**
   * `feed({ raw })` once the time the chunk came was told (see {@link startOfChunk}): the session's
   * output pipeline calls the three parts of `feed` itself (six times a cell), with no event made.
   *
   * @internal
   */
  feedRaw(): Verdict | undefined {
    const boot = this.boot;
    if (boot === undefined || boot.hide !== true) return undefined;
    return this.endHiddenBoot(boot);
  }

  /** `feed({ mark })` (see {@link feedRaw}). @internal */
  feedMark(full: string): Verdict | undefined {
    let boot = this.boot;
    if (boot !== undefined && boot.hide === true) return this.endHiddenBoot(boot);
    if (this.readyStep !== undefined) {
      this.takeReadyStep();
      boot = this.boot;
    }
    // The mark is read where it is, after the prefix (`start`): no copy of it for the session's own
    // shell (depth 0), which tags nothing, its marks starting with their kind, a letter.
    const prefixEnd = this.markPrefix.length;
    const first = full.charCodeAt(prefixEnd);
    // Most marks: the session's own shell's, no nested program or bootstrap about, not a W mark.
    if (boot === undefined && (first < 0x30 || first > 0x39) && first !== 0x57 && this.levels.length === 1) {
      return this.onLevelMark(full, prefixEnd, first);
    }
    const tagged = first >= 0x30 && first <= 0x39 ? /^(\d+):/.exec(full.slice(prefixEnd)) : null;
    const depth = tagged === null ? 0 : Number(tagged[1]);
    const mark = tagged === null ? full : full.slice(prefixEnd + tagged[0].length);
    const start = tagged === null ? prefixEnd : 0;
    const kind = tagged === null ? first : mark.charCodeAt(0);
    if (kind === 0x57 /* W */) {
      // bash's working directory, printed before a prompt when it changed: remembered, never an end.
      if (boot !== undefined && depth === boot.depth) boot.cwd = mark.slice(start + 2);
      else {
        const level = this.levels[depth];
        if (level !== undefined) level.cwd = mark.slice(start + 2);
      }
      return undefined;
    }
    if (boot !== undefined) {
      if (depth === boot.depth) return this.onBootMark(boot, mark.slice(start));
      if (depth > boot.depth) return undefined;
      // A program below it is back at its prompt: the program being set up ended first.
      this.cancelBoot();
    }
    const top = this.levels.length - 1;
    if (depth > top) return undefined;
    if (depth < top) this.leaveTo(depth, mark.slice(start));
    else if (this.top.repl !== undefined) return undefined;
    return this.onLevelMark(mark, start, kind);
  }

  /** `feed({ line, partial })` (see {@link feedRaw}). @internal */
  feedLine(line: string, partial: boolean): Verdict | undefined {
    const boot = this.boot;
    this.partialLine = partial ? line : "";
    if (boot !== undefined) {
      if (boot.hide === true) return this.endHiddenBoot(boot);
      if (boot.probes > 0) return partial ? undefined : ECHO;
    }
    const repl = this.top.repl;
    if (repl !== undefined) return this.feedRepl(repl, { line, partial });
    if (partial) return undefined;
    this.typing = false;
    return !this.outputStarted && (this.incomplete || this.looksLikeEcho(line)) ? ECHO : undefined;
  }

  /** The bootstrap of a nested program starts here: nothing after this is the cell's output. */
  private endHiddenBoot(boot: Boot): Verdict {
    boot.hide = false;
    return outputEnd();
  }

  private feedRepl(repl: FrameDetector, event: Extract<DetectorInput, { line: string }>): Verdict | undefined {
    const verdict = replVerdict(repl, event);
    if (!event.partial && !this.replOutputStarted) {
      // The first line back is the echo of the typed line (after the REPL's prompt): output starts after it.
      this.replOutputStarted = true;
      return OUTPUT_START;
    }
    return verdict;
  }

  /** Programs above `depth` ended: the shell there printed its status mark. */
  private leaveTo(depth: number, mark: string): void {
    const exitCode = mark.startsWith("D;") ? Number.parseInt(mark.slice(2), 10) : Number.NaN;
    const code = Number.isNaN(exitCode) ? null : exitCode;
    const popped = this.levels.splice(depth + 1);
    this.setTop();
    const outermost = popped[0];
    for (const level of popped.reverse()) {
      level.repl?.dispose?.();
      const program = level.program as NestedProgram;
      // Only the outermost one's status is known (the shell below saw it). ssh exits 255 when the
      // connection fails; a remote `exit 255` looks the same.
      const exitCode = level === outermost ? code : null;
      const lost = program.name === "ssh" && exitCode === 255;
      this.left.push({ ...program, exitCode, reason: lost ? "connection_lost" : "exit" });
    }
    this.stopNestedWatch();
    // Whatever the cell was doing up there, its end is now the shell's.
    this.typing = false;
    this.awaitingStart = false;
    this.tentative = false;
    this.outputStarted = true;
  }

  /** A mark of the program the cells go to, in `text` from `start`; `kind`: its first character's code. */
  private onLevelMark(text: string, start: number, kind: number): Verdict | undefined {
    switch (kind) {
      case 0x43 /* C */:
        this.typing = false;
        this.awaitingStart = false;
        this.tentative = false;
        this.confirmer.cancel();
        if (this.outputStarted) return undefined;
        this.outputStarted = true;
        return OUTPUT_START;
      case 0x44 /* D */: {
        const verdict = this.onStatus(text, start);
        // bash's status mark opens its prompt and is the prompt's only mark: it is ready too (what
        // readyAfterChunk does, in place: a call less a cell).
        if (this.readyStep === undefined && this.pendingEnd !== undefined && this.top.shell === "bash") {
          this.readyStep = this.onReadyStep;
          if (!this.toldChunkEnds) void Promise.resolve().then(this.takeReadyStepLater);
        }
        return verdict;
      }
      case 0x50 /* P */:
        // A continuation prompt: the cell is incomplete (open quote, block or heredoc). Cancel it
        // rather than wait for input that will never come; bash and zsh report status 130.
        // Outside a cell it is a person's multi-line command: theirs to finish.
        if (this.outputStarted || this.incomplete || !this.awaitingStart) return undefined;
        this.cancelIncomplete();
        return OUTPUT_START;
      case 0x42 /* B */:
        return this.onReady();
      default:
        return undefined;
    }
  }

  /**
   * bash draws its whole prompt in one write, the status mark first: the prompt is ready once the
   * chunk that holds the mark is taken in (the prompt's text after the mark included), which is
   * when the ready step runs, as it would for a ready mark at the prompt's end. One mark fewer
   * costs bash a fifth of its work per cell: its line editor scans the prompt once per byte.
   */
  private readyAfterChunk(ready: () => Verdict | undefined): void {
    if (this.readyStep !== undefined) return;
    this.readyStep = ready;
    // The session says when a chunk ends (see `endOfChunk`); until it did once, a microtask stands for it.
    if (!this.toldChunkEnds) void Promise.resolve().then(this.takeReadyStepLater);
  }

  /**
   * A chunk of output came at `at` (`performance.now()`), and is fed next: the time the raw feed
   * would read. Called by the session's output pipeline before each chunk.
   *
   * @internal
   */
  startOfChunk(at: number): void {
    this.toldChunkTimes = true;
    this.lastFedAt = at;
  }

  /**
   * The chunk of output fed last is taken in whole (its lines, marks and unfinished line): a prompt
   * drawn in it is ready now. Called by the session's output pipeline after each chunk; a detector
   * wrapped in one that does not pass this on takes the step in a microtask instead.
   *
   * @internal
   */
  endOfChunk(): void {
    this.toldChunkEnds = true;
    const ready = this.readyStep;
    if (ready === undefined) return;
    // What takeReadyStep does, in place (the end of a cell's frame waits on it: a call less), and
    // bash's prompt's step (most) called as the method it stands for.
    this.readyStep = undefined;
    if (this.disposed) return;
    const verdict = ready === this.onReadyStep ? this.onReady() : ready();
    if (verdict?.kind === "end") this.io?.endFrame(verdict);
  }

  /**
   * The session wrote `data` to the terminal (the cell's own bytes too, after {@link encode}): what
   * the line editor may hold. Called by the session for every write, and with "" when it starts; a
   * detector wrapped in one that does not pass this on always clears the line.
   *
   * @internal
   */
  inputWritten(data: string): void {
    this.toldInput = true;
    if (data === this.cellBytes) {
      this.cellBytes = undefined;
      this.cellInputOnly = true;
      return;
    }
    this.cellBytes = undefined;
    this.cellInputOnly = false;
    this.lineEmpty = false;
  }

  /** Takes the ready step now: at the end of the chunk, or before a later mark of the same chunk (as a ready mark would have come first). */
  private takeReadyStep(): void {
    const ready = this.readyStep;
    this.readyStep = undefined;
    if (ready === undefined || this.disposed) return;
    const verdict = ready();
    if (verdict?.kind === "end") this.io?.endFrame(verdict);
  }

  /**
   * A status mark, in `text` from `start`: `D;<status>;<cwd>` (the cwd may hold ";"), or bash's
   * `D;<status>` (its cwd comes in W marks).
   */
  private onStatus(text: string, start: number): Verdict | undefined {
    // The line editor redrawing its prompt (a resize) while the cell is typed: not the cell's end.
    if (this.typing) return undefined;
    // Only the first status mark before the prompt counts (fish may add one from its prompt).
    if (this.pendingEnd !== undefined) return undefined;
    // D;<status>;<cwd> (the cwd may hold ";"); bash's D;<status>: the directory last said.
    // bash's D;<status> with a one-digit status (most cells): read as it is.
    const digit = text.length === start + 3 ? text.charCodeAt(start + 2) - 0x30 : -1;
    const oneDigit = digit >= 0 && digit <= 9;
    const fieldsEnd = oneDigit ? -1 : text.indexOf(";", start + 2);
    const exitCode = oneDigit ? digit : Number.parseInt(fieldsEnd === -1 ? text.slice(start + 2) : text.slice(start + 2, fieldsEnd), 10);
    const top = this.top;
    if (fieldsEnd !== -1) top.cwd = text.slice(fieldsEnd + 1);
    this.pendingEnd = { kind: "end", exitCode: Number.isNaN(exitCode) ? null : exitCode, cwd: top.cwd ?? "" };
    const awaitingStart = this.awaitingStart;
    const incomplete = this.incomplete;
    // A command of the typed line ran (its start mark came) and the shell is back at its prompt: its line is empty.
    this.lineEmpty = this.cellInputOnly && !awaitingStart && !incomplete;
    this.cellInputOnly = false;
    if (awaitingStart && !incomplete) {
      // No command started: the cell ran none (a comment, a syntax error), or the line editor
      // redrew its prompt between accepting the line and running it. Only a prompt that stays ends it.
      this.tentative = true;
      return undefined;
    }
    this.outputStarted = true;
    return incomplete ? INCOMPLETE : OUTPUT_END;
  }

  /** The prompt is drawn (a ready mark): the pending end, if any, ends the frame. */
  private onReady(): Verdict | undefined {
    // Read by now: the shell has drawn its first prompt. Removed after the ready prompt is handled.
    if (this.startupFiles !== undefined) this.removeStartupFilesSoon();
    // A prompt without a finished command before it is readline redrawing the line.
    const end = this.pendingEnd;
    this.pendingEnd = undefined;
    if (end === undefined || !this.tentative) {
      // Back at the prompt: a command a person types next (outside any cell) starts its own output.
      if (end !== undefined) {
        this.outputStarted = false;
        this.stopNestedWatch();
      }
      if (end === undefined) return undefined;
      // Most cells neither enter nor leave a nested program: their end as it is.
      if (this.left.length === 0) return end;
      return frameEnd(this.withNesting(end));
    }
    return this.confirmTentative(end);
  }

  /**
   * A prompt after a status mark with no command started: the end counts once the prompt stays.
   * Apart from {@link onReady}, whose every call would otherwise make a context for this closure.
   */
  private confirmTentative(end: FrameEnd & { readonly kind: "end" }): Verdict | undefined {
    this.tentative = false;
    const confirmed = this.confirmer.confirm(() => {
      this.awaitingStart = false;
      this.stopNestedWatch();
      return end;
    });
    return confirmed === undefined ? undefined : frameEnd(confirmed);
  }

  /** Adds what the cell did to the stack of nested programs to its end. */
  private withNesting(end: FrameEnd): FrameEnd {
    if (this.left.length === 0) return end;
    const left = this.left;
    this.left = [];
    const back = this.top.program?.name ?? "the session's program";
    const note = left
      .map((program) =>
        program.reason === "connection_lost"
          ? `agent-tty: the connection of '${program.commandLine}' was lost (ssh exited 255); back in ${back}`
          : `agent-tty: '${program.commandLine}' ended${program.exitCode === null ? "" : ` (status ${program.exitCode})`}; back in ${back}`,
      )
      .join("\n");
    return { ...end, nested: { left, stack: this.nestedStack() }, note };
  }

  // ── In-band bootstrap ──────────────────────────────────────────────

  /** Types the probe that asks which shell answers; its answer (an I mark) brings the marks. */
  private startBoot(depth: number, program: Omit<NestedProgram, "shell"> | undefined, anyPrompt = false): void {
    const boot: Boot = { depth, stage: "probe", hide: false, anyPrompt, probes: 0, probedAt: 0 };
    if (program !== undefined) (boot as { program?: typeof program }).program = program;
    this.boot = boot;
    this.stopBootWatch();
    this.bootWatch = setInterval(() => this.bootTick(boot), BOOT_CHECK_MS);
    this.bootWatch.unref();
  }

  /**
   * Types the probe once the program shows a prompt: output that stopped, quiet, on an unfinished
   * line (typed earlier, while the far shell still starts, it can be lost: an ssh connection shared
   * through ControlMaster drops it), or after a long silence (a shell with an empty prompt). Typed
   * again when no shell answered, a few times; a nested program that never answers is left alone.
   */
  private bootTick(boot: Boot): void {
    if (this.boot !== boot || boot.stage !== "probe") {
      if (this.boot !== boot) this.stopBootWatch();
      return;
    }
    const now = performance.now();
    if (boot.depth > 0 && boot.probes >= MAX_PROBES && now - boot.probedAt >= PROBE_RETRY_MS) {
      // No shell answered: leave the program alone (it stays awaiting input).
      this.cancelBoot();
      if (boot.program?.pid != null) (this.notNested = own(this.notNested)).add(boot.program.pid);
      return;
    }
    if (boot.probes >= MAX_PROBES || (boot.probes > 0 && now - boot.probedAt < PROBE_RETRY_MS)) return;
    const quiet = now - this.lastFedAt;
    const partial = this.partialLine;
    // Never at a password or yes/no question (ssh's, sudo's): the probe would be the answer.
    if (ASKS_SECRET_OR_QUESTION.test(partial)) return;
    const promptLike = partial !== "" && (boot.anyPrompt || SHELL_PROMPT_END.test(partial));
    const atPrompt = promptLike && quiet >= BOOT_QUIET_MS && this.levelIo.waitingForInput() !== false;
    if (!atPrompt && quiet < BOOT_SILENT_MS) return;
    boot.probes++;
    boot.probedAt = now;
    // From the probe on, nothing is the cell's output (its echo, the bootstrap): the next feed says so.
    if (boot.depth > 0 && boot.probes === 1) boot.hide = true;
    const tag = boot.depth === 0 ? "" : `${boot.depth}:`;
    // A leading space keeps it out of the history of shells that ignore such lines (bash's ignorespace, zsh, fish).
    this.io?.write(` printf '\\033]${this.markPrefix}${tag}I;%s;%s;%s\\007' "$BASH_VERSION" "$ZSH_VERSION" "$FISH_VERSION"\r`);
  }

  private onBootMark(boot: Boot, mark: string): Verdict | undefined {
    const kind = mark.charAt(0);
    if (kind === "I" && boot.stage === "probe") {
      const [bash = "", zsh = "", fish = ""] = mark.slice(2).split(";");
      const shell: Shell = bash !== "" ? "bash" : zsh !== "" ? "zsh" : fish !== "" ? "fish" : "sh";
      boot.stage = "install";
      const prefix = `${this.markPrefix}${boot.depth === 0 ? "" : `${boot.depth}:`}`;
      const script = marksOf(shell, prefix);
      this.io?.write(` ${script.join("; ")}\r`);
      if (boot.depth === 0) {
        const base = this.levels[0] as Level;
        base.shell = shell;
        base.clear = clearKeyOf(shell);
      } else {
        (boot as { shell?: Shell }).shell = shell;
      }
      return undefined;
    }
    if (boot.stage !== "install") return undefined;
    if (kind === "D") {
      // Other shells' status marks carry the directory; bash's came before, in a W mark.
      const fieldsEnd = mark.indexOf(";", 2);
      if (fieldsEnd !== -1) boot.cwd = mark.slice(fieldsEnd + 1);
      const shell = boot.depth === 0 ? (this.levels[0] as Level).shell : (boot as { shell?: Shell }).shell;
      if (shell === "bash") this.readyAfterChunk(() => (this.boot === boot ? this.onBootMark(boot, "B") : undefined));
      return undefined;
    }
    if (kind !== "B") return undefined;
    // The marks are in: the shell's prompt now says so.
    this.cancelBoot();
    if (boot.depth === 0) {
      (this.levels[0] as Level).cwd = boot.cwd;
      return frameEnd({ cwd: boot.cwd ?? "" });
    }
    const shell = (boot as { shell?: Shell }).shell ?? "sh";
    const program: NestedProgram = { ...(boot.program as Omit<NestedProgram, "shell">), shell };
    this.levels.push({
      tag: `${boot.depth}:`,
      shell,
      clear: clearKeyOf(shell),
      program,
      remote: program.remote,
      cwd: boot.cwd,
    });
    this.setTop();
    return frameEnd(this.entered(program, boot.cwd));
  }

  private cancelBoot(): void {
    this.stopBootWatch();
    this.boot = undefined;
  }

  private entered(program: NestedProgram, cwd: string | undefined): FrameEnd {
    this.stopNestedWatch();
    this.outputStarted = false;
    this.pendingEnd = undefined;
    const end: FrameEnd = { exitCode: null, nested: { entered: program, stack: this.nestedStack() } };
    if (cwd !== undefined && cwd !== "") end.cwd = cwd;
    return end;
  }

  // ── Nested programs ────────────────────────────────────────────────

  /**
   * While a cell runs, watches the terminal's foreground: a program the cell started that waits at
   * its own prompt (a shell, ssh, su, a REPL) becomes the next level.
   */
  private watchNested(): void {
    const io = this.io;
    if (io === undefined || (io.foreground === undefined && !this.top.remote)) this.stopNestedWatch();
    // (The cell's `encode` already forgot the last cell's REPL candidate.)
    else this.nestedWatch.start();
  }

  private stopNestedWatch(): void {
    this.nestedWatch.stop();
    this.replCandidate = undefined;
  }

  private checkNested(io: DetectorIo): void {
    if (this.boot !== undefined || !this.outputStarted || this.pendingEnd !== undefined) return;
    if (this.top.remote) {
      this.checkNestedRemote();
      return;
    }
    if (performance.now() - this.lastFedAt < NESTED_QUIET_MS) return;
    const fg = io.foreground?.();
    if (fg === undefined || fg.isSessionProgram || this.notNested.has(fg.pid)) return;
    if (this.levels.some((level) => level.program?.pid === fg.pid)) return;
    // ssh sharing a connection (ControlMaster) hands the terminal to its master: it is never seen reading it.
    if (!fg.waiting && !REMOTE_PROGRAMS.has(fg.name)) return;
    const commandLine = fg.commandLine.length > 0 ? fg.commandLine : [fg.name];
    const candidate = this.replCandidate;
    if (candidate !== undefined && candidate.pid === fg.pid) {
      this.offerReplPrompt(candidate);
      return;
    }
    const kind = classifyNested(
      commandLine,
      (name) => integratedShell(name) !== undefined,
      (command, args) => replDetector(command, args) !== undefined,
    );
    if (kind === undefined) {
      (this.notNested = own(this.notNested)).add(fg.pid);
      return;
    }
    const program = {
      name: fg.name,
      pid: fg.pid,
      commandLine: commandLine.join(" "),
      kind: kind.kind,
      remote: kind.kind === "shell" && (kind.remote || this.top.remote),
      depth: this.levels.length,
    };
    if (kind.kind === "shell") {
      // A shell in the foreground waits at its prompt, whatever it looks like; ssh or su may be asking a password.
      this.startBoot(this.levels.length, program, integratedShell(fg.name) !== undefined);
      return;
    }
    const [command = "", ...args] = commandLine;
    this.adoptRepl(replDetector(command, args) as FrameDetector, program as NestedProgram);
  }

  /**
   * Inside ssh (or a container) the far side's processes cannot be seen: a cell whose output stops,
   * quiet, at a known REPL's prompt (`>>> `, `db=# `) or at what looks like a shell's (`$ `, `# `,
   * `% `) is taken for a nested program; a shell must answer the probe to become one.
   */
  private checkNestedRemote(): void {
    const candidate = this.replCandidate;
    if (candidate !== undefined) {
      this.offerReplPrompt(candidate);
      return;
    }
    if (performance.now() - this.lastFedAt < REMOTE_NESTED_QUIET_MS) return;
    const partial = this.partialLine;
    if (partial === "" || partial === this.remoteTried) return;
    this.remoteTried = partial;
    const lines = this.codeLines;
    const line = lines === undefined ? this.codeLine : (lines[lines.length - 1] ?? "");
    const name = basename(
      line.split(/\s+/).find((word) => word !== "" && !word.includes("=") && word !== "exec" && word !== "sudo") ?? line,
    );
    const program = { name, pid: null, commandLine: line, remote: true, depth: this.levels.length };
    const repl = replDetectorForPrompt(partial);
    if (repl !== undefined) {
      this.adoptRepl(repl, { ...program, kind: "repl" });
      return;
    }
    if (REMOTE_SHELL_PROMPT.test(partial)) this.startBoot(this.levels.length, { ...program, kind: "shell" });
  }

  private adoptRepl(detector: FrameDetector, program: NestedProgram): void {
    const replCandidate: ReplCandidate = { pid: program.pid ?? -1, detector, program, fedPartial: "" };
    detector.attach?.({
      write: (data) => this.io?.write(data),
      waitingForInput: () => this.levelIo.waitingForInput(),
      endFrame: (end) => this.onReplEnd(replCandidate, end ?? {}),
    });
    this.replCandidate = replCandidate;
    this.offerReplPrompt(replCandidate);
  }

  /** Shows a REPL candidate the line it left unfinished: its prompt, once confirmed, makes it the next level. */
  private offerReplPrompt(candidate: ReplCandidate): void {
    const partial = this.partialLine;
    if (partial === "" || partial === candidate.fedPartial) return;
    candidate.fedPartial = partial;
    const verdict = replVerdict(candidate.detector, { line: partial, partial: true });
    if (verdict?.kind === "end") this.onReplEnd(candidate, verdict);
  }

  /** A REPL's prompt detector ended a frame: the REPL just became the next level, or one of its cells ended. */
  private onReplEnd(candidate: { readonly detector: FrameDetector; readonly program: NestedProgram }, end: FrameEnd): void {
    if (this.replCandidate === candidate) {
      this.replCandidate = undefined;
      if (this.boot !== undefined || this.pendingEnd !== undefined) return;
      this.levels.push({
        tag: `${candidate.program.depth}:`,
        shell: "sh",
        clear: undefined,
        repl: candidate.detector,
        program: candidate.program,
        remote: false,
      });
      this.setTop();
      this.io?.endFrame(this.entered(candidate.program, undefined));
      return;
    }
    if (this.top.repl === candidate.detector) this.io?.endFrame(end);
  }

  private cancelIncomplete(): void {
    this.stopWatching();
    this.typing = false;
    this.awaitingStart = false;
    this.incomplete = true;
    // Ctrl-C once the shell reads its line editor again: sent while it still sets up the terminal
    // after drawing the continuation prompt, it can be lost (zsh).
    this.confirmer.confirm(() => {
      this.io?.write("\x03");
      return undefined;
    });
  }

  /**
   * fish has no continuation prompt: given an incomplete cell it just waits for the rest. A cell
   * no command of which started while fish sits reading the terminal, quiet, is incomplete.
   */
  private watchIncomplete(quietMs: number): void {
    this.stopWatching();
    this.lastFedAt = performance.now();
    this.incompleteWatch = setInterval(() => {
      if (!this.awaitingStart || this.incomplete) this.stopWatching();
      else if (performance.now() - this.lastFedAt >= quietMs && this.levelIo.waitingForInput() !== false) this.cancelIncomplete();
    }, INCOMPLETE_CHECK_MS);
    this.incompleteWatch.unref();
  }

  private stopWatching(): void {
    if (this.incompleteWatch === undefined) return;
    clearInterval(this.incompleteWatch);
    this.incompleteWatch = undefined;
  }

  // Before the first command starts, what the shell shows is the echoed cell
  // (or, with no command at all, an error about it).
  private looksLikeEcho(line: string): boolean {
    // The echo as typed (most cells): nothing to trim or search.
    if (line === this.codeLine && line !== "") return true;
    const trimmed = line.trim();
    if (trimmed === "") return true;
    const lines = this.codeLines;
    if (lines === undefined) return this.codeLine !== "" && trimmed.includes(this.codeLine);
    for (const code of lines) if (trimmed.includes(code)) return true;
    return false;
  }

  /** Apart from `onReady` (every cell): an arrow there made it allocate a closure context on every call. */
  private removeStartupFilesSoon(): void {
    setImmediate(() => this.removeStartupFiles());
  }

  private removeStartupFiles(): void {
    this.startupFiles?.remove();
    this.startupFiles = undefined;
  }

  dispose(): void {
    this.disposed = true;
    this.stopWatching();
    this.stopBootWatch();
    this.stopNestedWatch();
    this.nestedWatch.dispose();
    this.cancelBoot();
    this.confirmer.cancel();
    for (const level of this.levels) level.repl?.dispose?.();
    this.removeStartupFiles();
  }
}

/** What a nested REPL's prompt detector (a built-in one, answering at once) says of a line. */
function replVerdict(repl: FrameDetector, event: Extract<DetectorInput, { line: string }>): Verdict | undefined {
  const result: FeedResult | Promise<FeedResult> = repl.feed(event);
  return result instanceof Promise ? undefined : toVerdict(result);
}
