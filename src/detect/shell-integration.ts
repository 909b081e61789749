import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { invalidArgument } from "../errors.js";
import { makePrivateTempDir } from "../internal/private-temp-dir.js";
import { PromptConfirmer } from "./confirm.js";
import type { DetectorIo, FeedResult, FrameDetector, FrameEnd, SpawnPlan } from "./types.js";

/** The OSC number of agent-tty's marks; terminals ignore it. */
const OSC = "6973";

/** Output of a cell the shell could not run because it was incomplete. */
export const INCOMPLETE_CELL_MESSAGE =
  "agent-tty: the cell is incomplete (an unclosed quote, block or heredoc) and was cancelled; fix it and run it again";
const INCOMPLETE = { output: "end", note: INCOMPLETE_CELL_MESSAGE } as const;

/** Longest cell typed rather than pasted (a line editor redraws as it types). */
const TYPED_CELL_MAX_CHARS = 512;
/** How long fish must sit reading, with nothing new on the terminal, before a cell counts as incomplete. */
const INCOMPLETE_QUIET_MS = 200;
const INCOMPLETE_CHECK_MS = 50;
/**
 * Ctrl-X Ctrl-K, bound to clear the line editor's whole line in every keymap (emacs and vi) of
 * bash and zsh by the init file. Ctrl-U would ring the bell on an empty line (one more write per
 * cell) and means something else in vi mode; an escape sequence costs readline a timed wait.
 */
const CLEAR_KEY = "\x18\x0b";
/** fish: Ctrl-A Ctrl-K, beginning of line and kill to its end. */
const FISH_CLEAR = "\x01\x0b";
/** No line editor (sh, bash --noediting): the terminal's own kill character. */
const TTY_KILL = "\x15";
/** Printable ASCII only: nothing a line editor binds to a command. */
const PLAIN_LINE = /^[\x20-\x7e]*$/;

/** The shells {@link shellIntegration} knows how to hook. */
export const INTEGRATED_SHELLS = ["bash", "zsh", "fish", "sh", "dash"] as const;

/** Names the shell a command starts, if it is one we can hook. */
export function integratedShell(command: string): (typeof INTEGRATED_SHELLS)[number] | undefined {
  const name = basename(command).replace(/\.exe$/, "").replace(/-?[\d.]+$/, "");
  return (INTEGRATED_SHELLS as readonly string[]).includes(name) ? (name as (typeof INTEGRATED_SHELLS)[number]) : undefined;
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
 */
export function shellIntegration(): FrameDetector {
  return new ShellIntegrationDetector();
}

class ShellIntegrationDetector implements FrameDetector {
  readonly name = "shell-integration";
  readonly removesEcho = true;
  readonly tracksPrompt = true;
  readonly markPrefix: string;
  readonly #secret = randomBytes(12).toString("hex");
  #tempDir: string | undefined;
  #shell: (typeof INTEGRATED_SHELLS)[number] = "bash";
  #codeLines: string[] = [];
  #io: DetectorIo | undefined;
  #outputStarted = false;
  #incomplete = false;
  /** The cell is written but the shell has not accepted its line yet (no newline, no mark since). */
  #typing = false;
  /** The cell is written and no command of it has started (no C mark yet). */
  #awaitingStart = false;
  /** The pending end came without a command before it: it counts once the prompt stays. */
  #tentative = false;
  readonly #confirmer = new PromptConfirmer(() => this.#io);
  #incompleteWatch: NodeJS.Timeout | undefined;
  /** What clears the line editor before a cell. */
  #clear = CLEAR_KEY;
  #lastFedAt = 0;
  #pendingEnd: FrameEnd | undefined;

  constructor() {
    this.markPrefix = `${OSC};${this.#secret};`;
  }

  setup(plan: SpawnPlan): SpawnPlan {
    const shell = integratedShell(plan.command);
    if (shell === undefined) {
      throw invalidArgument(
        `shellIntegration() supports ${INTEGRATED_SHELLS.join(", ")}, not \`${plan.command}\`; use detectors.prompt() or detectors.repeatEnter()`,
      );
    }
    this.#shell = shell;
    // Every shell reads the marks (and so the secret) from a private file of ours, never from its
    // command line, which any process can read.
    this.#tempDir = makePrivateTempDir();
    if (shell === "fish") return this.#setupFish(plan, this.#tempDir);
    if (shell === "bash") return this.#setupBash(plan, this.#tempDir);
    if (shell === "zsh") return this.#setupZsh(plan, this.#tempDir);
    return this.#setupPosix(plan, this.#tempDir);
  }

  #setupBash(plan: SpawnPlan, dir: string): SpawnPlan {
    const args: string[] = [];
    let userRc: string | undefined = join(plan.env["HOME"] ?? homedir(), ".bashrc");
    for (let index = 0; index < plan.args.length; index++) {
      const arg = plan.args[index] as string;
      if (arg === "--norc") userRc = undefined;
      else if (arg === "--rcfile" || arg === "--init-file") userRc = plan.args[++index];
      else args.push(arg);
    }
    if (args.includes("--noediting")) this.#clear = TTY_KILL;
    const rcFile = join(dir, "bashrc");
    const marked = (kind: string) => shellQuote(`${this.markPrefix}${kind}`);
    // The prompt carries the status and cwd mark (expanded once per prompt; a redraw repeats it
    // unchanged) and ends with the ready mark: one write, and nothing for PROMPT_COMMAND to print.
    const statusMark = `\\[\\e]${this.markPrefix}D;\$?;\${PWD}\\a\\]`;
    const readyMark = `\\[\\e]${this.markPrefix}B\\a\\]`;
    const continuationMark = `\\[\\e]${this.markPrefix}P\\a\\]`;
    const script = [
      "# agent-tty shell integration: loads the user's rc file, then adds invisible frame marks.",
      userRc === undefined
        ? // --norc, but bash reads the system rc file before ours: undo what it set up.
          "PS1='\\s-\\v\\$ '; unset -f command_not_found_handle 2>/dev/null; unset PROMPT_COMMAND"
        : `[ -r ${shellQuote(userRc)} ] && . ${shellQuote(userRc)}`,
      // The marks expand $PWD and the status inside the prompt.
      "shopt -s promptvars",
      `for __agent_tty_map in emacs vi-insert vi-command; do bind -m $__agent_tty_map '"\\C-x\\C-k": kill-whole-line' 2>/dev/null; done; unset __agent_tty_map`,
      // Puts the marks back where a cell (or the user's PROMPT_COMMAND) replaced a prompt.
      `__agent_tty_marks() {`,
      `  case "$PS1" in *${marked("D;")}*${marked("B")}*) ;; *) PS1=${shellQuote(statusMark)}"$PS1"${shellQuote(readyMark)} ;; esac`,
      `  case "$PS2" in *${marked("P")}*) ;; *) PS2=${shellQuote(continuationMark)}"$PS2" ;; esac`,
      `  case "$PS0" in *${marked("C")}*) ;; *) PS0="$PS0"${shellQuote(`\\e]${this.markPrefix}C\\a`)} ;; esac`,
      `}`,
      "__agent_tty_marks",
      // Runs before every prompt (never on a redraw), after the user's own; bash keeps $? for the prompt.
      `__agent_tty_check() { [[ $PS1 == *${marked("D;")}*${marked("B")}* && $PS2 == *${marked("P")}* && $PS0 == *${marked("C")}* ]] || __agent_tty_marks; }`,
      // From bash 5.1 it is an element of its own: a cell assigning PROMPT_COMMAND replaces element 0 only.
      "if (( BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 501 )); then",
      "  (( ${#PROMPT_COMMAND[@]} )) || PROMPT_COMMAND=('')",
      "  PROMPT_COMMAND+=(__agent_tty_check)",
      "else",
      '  PROMPT_COMMAND="${PROMPT_COMMAND:+${PROMPT_COMMAND%;}; }__agent_tty_check"',
      "fi",
      "",
    ].join("\n");
    writeFileSync(rcFile, script, { mode: 0o600 });
    return { ...plan, args: ["--rcfile", rcFile, ...args] };
  }

  // POSIX sh (dash): no PS0 or PROMPT_COMMAND, but PS1 is expanded each time and $ENV is read.
  #setupPosix(plan: SpawnPlan, dir: string): SpawnPlan {
    const envFile = join(dir, "env.sh");
    const mark = (kind: string) => `\\033]${this.markPrefix}${kind}\\007`;
    const userEnv = plan.env["ENV"];
    const script = [
      "# agent-tty shell integration: loads the user's $ENV file, then adds invisible frame marks.",
      userEnv === undefined ? "" : `[ -r ${shellQuote(userEnv)} ] && . ${shellQuote(userEnv)}`,
      `__agent_tty_start() { printf '${mark("C")}'; }`,
      `__agent_tty_status="$(printf '\\033]${this.markPrefix}D;')" __agent_tty_bel="$(printf '\\007')" __agent_tty_ready="$(printf '${mark("B")}')"`,
      // The prompt carries the marks; a cell that replaced it gets them back when it ends.
      `__agent_tty_marks() { case "$PS1" in *"$__agent_tty_ready"*) ;; *) PS1="$__agent_tty_status"'$?;$PWD'"$__agent_tty_bel\${PS1-'$ '}$__agent_tty_ready" ;; esac; }`,
      "__agent_tty_marks",
      `__agent_tty_end() { __agent_tty_s=$?; __agent_tty_marks; return $__agent_tty_s; }`,
      "",
    ].join("\n");
    writeFileSync(envFile, script, { mode: 0o600 });
    return { ...plan, env: { ...plan.env, ENV: envFile } };
  }

  #setupZsh(plan: SpawnPlan, dir: string): SpawnPlan {
    // zsh reads its files from $ZDOTDIR: ours are there, and each loads the user's own from where
    // they would have been (their ZDOTDIR, or HOME). With -f, ours load none of the user's.
    const noRcs = plan.args.some((arg) => arg === "-f" || arg === "--no-rcs");
    const args = plan.args.filter((arg) => arg !== "-f" && arg !== "--no-rcs");
    const userZdotdir = plan.env["ZDOTDIR"];
    const toUser = userZdotdir === undefined ? "unset ZDOTDIR" : `ZDOTDIR=${shellQuote(userZdotdir)}`;
    const loadUser = (file: string) => (noRcs ? "" : `[[ -r \${ZDOTDIR:-$HOME}/${file} ]] && . \${ZDOTDIR:-$HOME}/${file}`);
    const mark = (kind: string) => `%{\\e]${this.markPrefix}${kind}\\a%}`;
    const has = (kind: string) => shellQuote(`${this.markPrefix}${kind}`);
    // Between files, ZDOTDIR points back at ours; the user's value (maybe set by their .zshenv) is kept aside.
    const zshenv = [
      "# agent-tty shell integration: the user's .zshenv, then back to agent-tty's ZDOTDIR.",
      noRcs ? "unsetopt GLOBAL_RCS" : "",
      toUser,
      loadUser(".zshenv"),
      "typeset -g __agent_tty_zdotdir_set=${+ZDOTDIR} __agent_tty_zdotdir=${ZDOTDIR-}",
      `ZDOTDIR=${shellQuote(dir)}`,
      "",
    ];
    const restoreUser = '(( __agent_tty_zdotdir_set )) && ZDOTDIR=$__agent_tty_zdotdir || unset ZDOTDIR';
    const zprofile = ["# agent-tty shell integration: the user's .zprofile.", restoreUser, loadUser(".zprofile"), `ZDOTDIR=${shellQuote(dir)}`, ""];
    const zshrc = [
      "# agent-tty shell integration: loads the user's .zshrc, then adds invisible frame marks.",
      // From here on ZDOTDIR is the user's: zsh reads their .zlogin from it, and so do their scripts.
      restoreUser,
      "unset __agent_tty_zdotdir_set __agent_tty_zdotdir",
      loadUser(".zshrc"),
      // Cells are written like scripts: a # starts a comment, as in bash.
      "setopt INTERACTIVE_COMMENTS",
      "for __agent_tty_map in emacs viins vicmd; do bindkey -M $__agent_tty_map '^X^K' kill-buffer; done; unset __agent_tty_map",
      `__agent_tty_precmd() {`,
      `  local ec=$?`,
      `  print -rn -- $'\\e]${this.markPrefix}D;'"$ec;$PWD"$'\\a' >&2`,
      // Last of all precmd functions, so a theme that rewrites the prompt in its own precmd keeps the marks.
      `  precmd_functions=(\${precmd_functions:#__agent_tty_prompt} __agent_tty_prompt)`,
      `}`,
      `__agent_tty_prompt() {`,
      `  [[ $PROMPT == *${has("B")}* ]] || PROMPT="$PROMPT"$'${mark("B")}'`,
      `  [[ $PROMPT2 == *${has("P")}* ]] || PROMPT2=$'${mark("P")}'"$PROMPT2"`,
      `}`,
      `__agent_tty_preexec() { print -rn -- $'\\e]${this.markPrefix}C\\a'; }`,
      "autoload -Uz add-zsh-hook",
      "add-zsh-hook preexec __agent_tty_preexec",
      // First of all precmd functions: the status is the cell's, before any other hook runs.
      "precmd_functions=(__agent_tty_precmd ${precmd_functions:#__agent_tty_precmd} __agent_tty_prompt)",
      "unsetopt PROMPT_SP 2>/dev/null",
      "",
    ];
    writeFileSync(join(dir, ".zshenv"), zshenv.join("\n"), { mode: 0o600 });
    writeFileSync(join(dir, ".zprofile"), zprofile.join("\n"), { mode: 0o600 });
    writeFileSync(join(dir, ".zshrc"), zshrc.join("\n"), { mode: 0o600 });
    return { ...plan, args, env: { ...plan.env, ZDOTDIR: dir } };
  }

  #setupFish(plan: SpawnPlan, dir: string): SpawnPlan {
    this.#clear = FISH_CLEAR;
    const prefix = this.markPrefix;
    const init = [
      `function __agent_tty_preexec --on-event fish_preexec; printf '\\e]${prefix}C\\a'; end`,
      // Marked right after the command, before fish redraws a line that lacks its newline.
      `function __agent_tty_postexec --on-event fish_postexec; printf '\\e]${prefix}D;%s;%s\\a' $status $PWD; set -g __agent_tty_marked 1; end`,
      `function __agent_tty_return; return $argv[1]; end`,
      // The user's prompt, wrapped: the status mark (when the command did not give it) and the ready mark.
      "function __agent_tty_wrap_prompt",
      "  functions -e __agent_tty_user_prompt",
      "  functions -c fish_prompt __agent_tty_user_prompt 2>/dev/null; or function __agent_tty_user_prompt; printf '> '; end",
      "  function fish_prompt --description agent-tty",
      "    set -l ec $status",
      `    set -q __agent_tty_marked; or printf '\\e]${prefix}D;%s;%s\\a' $ec $PWD`,
      "    set -e __agent_tty_marked",
      "    __agent_tty_return $ec; __agent_tty_user_prompt",
      `    printf '\\e]${prefix}B\\a'`,
      "  end",
      "end",
      "__agent_tty_wrap_prompt",
      // A cell that defines its own fish_prompt gets it wrapped before it is drawn.
      "function __agent_tty_guard --on-event fish_prompt",
      "  set -l details (functions --details --verbose fish_prompt)",
      "  test \"$details[5]\" = agent-tty; or __agent_tty_wrap_prompt",
      "end",
      // Ctrl-C on a command line (an incomplete cell, an interrupt before it ran) redraws the prompt
      // without running fish_prompt again: the status mark comes from the cancel event instead.
      `function __agent_tty_cancel --on-event fish_cancel; printf '\\e]${prefix}D;130;%s\\a' $PWD; set -g __agent_tty_marked 1; end`,
      `function fish_right_prompt; end`,
      `set -g fish_greeting ''`,
    ].join("\n");
    const initFile = join(dir, "init.fish");
    writeFileSync(initFile, init, { mode: 0o600 });
    return { ...plan, args: ["--init-command", `source '${initFile}'`, ...plan.args] };
  }

  attach(io: DetectorIo): void {
    this.#io = io;
  }

  clearLineSequence(): string {
    return this.#clear;
  }

  encode(code: string): string {
    this.#codeLines = code.includes("\n")
      ? code
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== "")
      : [code.trim()].filter((line) => line !== "");
    this.#outputStarted = false;
    this.#incomplete = false;
    this.#typing = true;
    this.#awaitingStart = true;
    this.#tentative = false;
    this.#confirmer.cancel();
    this.#pendingEnd = undefined;
    if (this.#shell === "sh" || this.#shell === "dash") {
      // No line editor and no paste mode: the cell is read whole as a quoted heredoc, then run as one
      // unit. Ctrl-U first drops whatever was typed ahead since the prompt.
      const end = `AGENT_TTY_${randomBytes(6).toString("hex")}`;
      return `${TTY_KILL}__agent_tty_start; eval "$(cat <<'${end}'\r${code.replace(/\n/g, "\r")}\r${end}\r)"; __agent_tty_end\r`;
    }
    if (this.#shell === "fish") this.#watchIncomplete();
    // The line is cleared first: whatever reached the line editor since the prompt (a terminal's
    // answer to a query nobody read, a stray key) is dropped instead of being run with the cell. A
    // short one-line cell is typed; anything else is pasted, so it runs as one unit and no tab completes.
    if (code.length <= TYPED_CELL_MAX_CHARS && PLAIN_LINE.test(code)) return `${this.#clear}${code}\r`;
    return `${this.#clear}\x1b[200~${code}\x1b[201~\r`;
  }

  feed(event: Parameters<FrameDetector["feed"]>[0]): FeedResult {
    if (this.#incompleteWatch !== undefined) this.#lastFedAt = performance.now();
    if ("mark" in event) return this.#onMark(event.mark.slice(this.markPrefix.length));
    if ("line" in event && !event.partial) this.#typing = false;
    if ("line" in event && !event.partial && !this.#outputStarted && (this.#incomplete || this.#looksLikeEcho(event.line))) {
      return { echo: true };
    }
    return undefined;
  }

  #onMark(mark: string): FeedResult {
    switch (mark.charAt(0)) {
      case "C":
        this.#typing = false;
        this.#awaitingStart = false;
        this.#tentative = false;
        this.#confirmer.cancel();
        if (this.#outputStarted) return undefined;
        this.#outputStarted = true;
        return { output: "start" };
      case "D": {
        // The line editor redrawing its prompt (a resize) while the cell is typed: not the cell's end.
        if (this.#typing) return undefined;
        // Only the first status mark before the prompt counts (fish may add one from its prompt).
        if (this.#pendingEnd !== undefined) return undefined;
        const [status = "", ...cwdParts] = mark.slice(2).split(";");
        const exitCode = Number.parseInt(status, 10);
        this.#pendingEnd = { exitCode: Number.isNaN(exitCode) ? null : exitCode, cwd: cwdParts.join(";") };
        if (this.#awaitingStart && !this.#incomplete) {
          // No command started: the cell ran none (a comment, a syntax error), or the line editor
          // redrew its prompt between accepting the line and running it. Only a prompt that stays ends it.
          this.#tentative = true;
          return undefined;
        }
        this.#outputStarted = true;
        return this.#incomplete ? INCOMPLETE : { output: "end" };
      }
      case "P":
        // A continuation prompt: the cell is incomplete (open quote, block or heredoc). Cancel it
        // rather than wait for input that will never come; bash and zsh report status 130.
        if (this.#outputStarted || this.#incomplete) return undefined;
        this.#cancelIncomplete();
        return { output: "start" };
      case "B": {
        // Read by now: the shell has drawn its first prompt. Removed after the ready prompt is handled.
        if (this.#tempDir !== undefined) setImmediate(() => this.#removeTempDir());
        // A prompt without a finished command before it is readline redrawing the line.
        const end = this.#pendingEnd;
        this.#pendingEnd = undefined;
        if (end === undefined || !this.#tentative) {
          // Back at the prompt: a command a person types next (outside any cell) starts its own output.
          if (end !== undefined) this.#outputStarted = false;
          return end;
        }
        this.#tentative = false;
        return this.#confirmer.confirm(() => {
          this.#awaitingStart = false;
          return end;
        });
      }
      default:
        return undefined;
    }
  }

  #cancelIncomplete(): void {
    this.#stopWatching();
    this.#typing = false;
    this.#awaitingStart = false;
    this.#incomplete = true;
    // Ctrl-C once the shell reads its line editor again: sent while it still sets up the terminal
    // after drawing the continuation prompt, it can be lost (zsh).
    this.#confirmer.confirm(() => {
      this.#io?.write("\x03");
      return undefined;
    });
  }

  /**
   * fish has no continuation prompt: given an incomplete cell it just waits for the rest. A cell
   * no command of which started while fish sits reading the terminal, quiet, is incomplete.
   */
  #watchIncomplete(): void {
    this.#stopWatching();
    this.#lastFedAt = performance.now();
    this.#incompleteWatch = setInterval(() => {
      if (!this.#awaitingStart || this.#incomplete) this.#stopWatching();
      else if (performance.now() - this.#lastFedAt >= INCOMPLETE_QUIET_MS && this.#io?.waitingForInput() === true) this.#cancelIncomplete();
    }, INCOMPLETE_CHECK_MS);
    this.#incompleteWatch.unref();
  }

  #stopWatching(): void {
    if (this.#incompleteWatch === undefined) return;
    clearInterval(this.#incompleteWatch);
    this.#incompleteWatch = undefined;
  }

  // Before the first command starts, what the shell shows is the echoed cell
  // (or, with no command at all, an error about it).
  #looksLikeEcho(line: string): boolean {
    const trimmed = line.trim();
    return trimmed === "" || this.#codeLines.some((code) => trimmed.includes(code));
  }

  #removeTempDir(): void {
    if (this.#tempDir === undefined) return;
    rmSync(this.#tempDir, { recursive: true, force: true });
    this.#tempDir = undefined;
  }

  dispose(): void {
    this.#stopWatching();
    this.#confirmer.cancel();
    this.#removeTempDir();
  }
}

/** Quotes a string for POSIX shells. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
