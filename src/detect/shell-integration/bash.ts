import { homedir } from "node:os";
import { join } from "node:path";
import type { PrivateFiles } from "../../internal/private-temp-dir.js";
import type { SpawnPlan } from "../types.js";
import { shellQuote } from "./quote.js";

/**
 * The clear key (Ctrl-X Ctrl-K) bound to kill-whole-line in every keymap, as readline init-file
 * lines, read by `bind -m emacs -f`: the first binding goes to the emacs keymap `-m` chose.
 */
const CLEAR_KEY_BINDINGS = ["emacs", "vi-insert", "vi-command"]
  .map((map) => `${map === "emacs" ? "" : `set keymap ${map}\n`}"\\C-x\\C-k": kill-whole-line\n`)
  .join("");

/**
 * Starts bash with our rc file, which loads the user's own `.bashrc` (or the one
 * `--rcfile`/`--init-file` named; none with `--norc`) and then adds the marks. It is bash's
 * `--rcfile`; with `--norc`, where bash must read no rc file (not even the system's, which
 * `--rcfile` does not skip), the `PROMPT_COMMAND` bash is given loads it before the first prompt.
 */
export function installBash(plan: SpawnPlan, files: PrivateFiles, markPrefix: string): SpawnPlan {
  const args: string[] = [];
  let userRc: string | undefined = join(plan.env["HOME"] ?? homedir(), ".bashrc");
  for (let index = 0; index < plan.args.length; index++) {
    const arg = plan.args[index] as string;
    if (arg === "--norc") userRc = undefined;
    else if (arg === "--rcfile" || arg === "--init-file") userRc = plan.args[++index];
    else args.push(arg);
  }
  // One `bind -f` reads the three key bindings from a file: three `bind` commands cost bash a
  // tenth of its start-up (each scans the whole keymap for what the key was bound to). The file is
  // the same for every session: written once for the sessions of this process. Without a line
  // editor there is nothing to bind (the clear key is the terminal's own).
  const keys = plan.args.includes("--noediting") ? null : files.shared("inputrc", CLEAR_KEY_BINDINGS);
  const script = startupScript(markPrefix, userRc, keys);
  const rcFile = files.write("bashrc", script);
  if (userRc === undefined) {
    return { ...plan, args: ["--norc", ...args], env: { ...plan.env, PROMPT_COMMAND: `. ${shellQuote(rcFile)}` } };
  }
  return { ...plan, args: ["--rcfile", rcFile, ...args] };
}

/**
 * The last start-up script made, as its text around the part of the mark prefix after the OSC
 * number (the secret): the sessions of a process mostly start alike, and the script's ~40 pieces
 * cost ~3 kB of heap a spawn to put together again.
 */
let lastScript: { readonly key: string; readonly parts: readonly string[] } | undefined;
/** What the secret part may hold to be put in the cached script's place as it is (base64url, the level's digits and separators). */
const PLAIN_SECRET = /^[\w;:-]*$/;

/** bash's start-up file for `markPrefix`: the user's rc file (none: `--norc`), then the marks. */
function startupScript(markPrefix: string, userRc: string | undefined, keys: string | null): string {
  const osc = markPrefix.slice(0, markPrefix.indexOf(";") + 1);
  const secret = markPrefix.slice(osc.length);
  if (!PLAIN_SECRET.test(secret)) return makeStartupScript(markPrefix, userRc, keys);
  const key = `${osc}\0${userRc === undefined ? "-" : `+${userRc}`}\0${keys === null ? "-" : `+${keys}`}`;
  if (lastScript?.key !== key) lastScript = { key, parts: makeStartupScript(`${osc}\0`, userRc, keys).split("\0") };
  return lastScript.parts.join(secret);
}

function makeStartupScript(markPrefix: string, userRc: string | undefined, keys: string | null): string {
  return [
    // The user's rc file first, then the marks (no comment: bash parses every character it is given,
    // some 300-500 instructions each in a start-up file).
    // --norc: nothing left of the PROMPT_COMMAND that loaded this file (no system rc file was read, so
    // the prompt is bash's own, or the one its environment gave, as with a plain `bash --norc`).
    // (--norc: the PROMPT_COMMAND that loaded this file is replaced, not unset first: an unset costs bash
    // 20k instructions, and bash exports no array.)
    ...(userRc === undefined ? [] : [`[ -r ${shellQuote(userRc)} ] && . ${shellQuote(userRc)}`]),
    ...bashMarks(markPrefix, { keys, norc: userRc === undefined }),
    "",
  ].join("\n");
}

// Each element is one complete command: the start-up file joins them with newlines, the in-band
// bootstrap with "; " into the one line it types. `prefix` is the OSC number, the secret and the level.

/**
 * The text bash parses and runs before every prompt (a `PROMPT_COMMAND` element): bash parses it
 * afresh each time, some 300 instructions a character, so it is short. `__atk` holds the one key
 * `.$PS1$PS2$PS0$PWD` last checked, as an empty element (a hash lookup costs a quarter of matching
 * the marks as patterns), and the variable `__at` names that element (a name reference: bash
 * expands the subscript it holds at each use, without parsing it in the element: 8k instructions
 * less a prompt). The word expands to nothing, a command bash does not run, unless the prompts or
 * the directory changed, when it names the function `__at` (functions and variables are apart in
 * bash: one short name, 0.8k instructions less a prompt), which rechecks them (no `[[ ]]` around
 * the lookup: 4k instructions less a prompt). What is left of its 32k a prompt (bash 5.2): ~15k to
 * run any element at all (`:` costs as much), 4.4k the name reference, ~2k each variable of the
 * key (fewer would miss a replaced PS2 or PS0); `${!name-…}` costs 2.5k more, and an array
 * without its empty element 0 saves 0.2k.
 */
const LOOKUP = "${__at-__at}";
/**
 * Under --norc no rc file set `PROMPT_COMMAND`: the user's element is empty. (The one that loaded
 * the start-up file is emptied, then the check is its element 1: bash makes the array from the
 * two assignments with fewer instructions than from a list.)
 */
const NORC_PROMPT_COMMAND = `PROMPT_COMMAND= PROMPT_COMMAND[1]=${shellQuote(LOOKUP)}`;
/**
 * Declares the check's key store and the name its lookup goes through (bash ≥ 4.3 expands a name
 * reference's subscript at each use). The prompts last checked are a plain variable, `__atp`, set
 * by `__atm`: a second associative array cost bash ~15k instructions to make at start-up.
 */
const DECLARE = ["declare -gA __atk", "declare -n __at='__atk[.$PS1$PS2$PS0$PWD]'"];

/**
 * bash: the prompt opens with the status mark, which is also its ready mark (readline draws the
 * whole prompt in one write, once it has the terminal); the working directory comes in a mark of
 * its own when it changed since the last prompt; PS0 prints the start mark, PS2 the continuation
 * mark. `startup`: the commands go in a start-up file (else they are typed in-band, into a shell
 * that may already have marks); `keys` is a readline init file that binds the clear key (null: no
 * line editor; typed in-band, three `bind` commands bind it), `norc`: no rc file was read, so the
 * prompts are expanded (bash's default) and `PROMPT_COMMAND` is unset.
 */
export function bashMarks(prefix: string, startup?: { keys: string | null; norc: boolean }): string[] {
  // The prompts name the marks by variable instead of holding their text: bash expands a prompt's
  // own characters one at a time (an allocation each in a UTF-8 locale) but a variable's value in
  // one piece, and the prompts stay short for the check that keys on them (12k instructions less a
  // cell). The prompt opens with the status mark (expanded once per prompt; a redraw repeats it
  // unchanged): nothing for PROMPT_COMMAND to print, and no second mark, since readline goes over
  // its prompt byte by byte several times a line in a UTF-8 locale: the working directory is not
  // in it. The status mark's OSC opening stays in PS1 itself: a program that inherits an exported
  // PS1 without the variables (a nested interactive bash, tmux) prints an OSC 6973 that terminals
  // ignore, not the status and a bell. A name without braces where a prompt holds it only before
  // `$?` or `\]` (bash takes `${…}` apart at a higher cost: 1.2k instructions a prompt); PS0 keeps
  // them, since the mark is appended there and a cell's `PS0+=text` would run the name on. Each byte
  // of the expanded prompt costs ~1.3k instructions a cell (readline scans it from its start for
  // each character): the status mark's 30 bytes cost 13.7k more than a 17-byte mark. Control bytes
  // held raw in PS1 cost bash as much as `\[`, `\e`, `\a` and `\]` (it quotes them).
  const osc = prefix.slice(0, prefix.indexOf(";") + 1);
  const names = `__ats=${shellQuote(`${prefix.slice(osc.length)}D;`)} __atc=$'\\e]${prefix}C\\a' __atq=$'\\e]${prefix}P\\a'`;
  const statusMark = shellQuote(`\\[\\e]${osc}$__ats$?\\a\\]`);
  const continuationMark = shellQuote("\\[$__atq\\]");
  const startMark = shellQuote("${__atc}");
  // The working directory, printed before the prompt only when it changed (the prompt's own stream).
  const cwdMark = `builtin printf '\\e]${prefix}W;%s\\a' "$PWD" >&2`;
  const keys = startup?.keys;
  return [
    // The marks expand the status inside the prompt.
    ...(startup?.norc === true ? [] : ["shopt -s promptvars"]),
    // `-m emacs`: the keymap the file's `set keymap` lines leave is put back. One redirection for
    // the three `bind` commands (each costs bash some ten system calls). Under --norc no rc file
    // turned the line editor off (--noediting binds nothing): `bind` has nothing to say.
    ...(keys === undefined
      ? [
          `{ ${["emacs", "vi-insert", "vi-command"].map((map) => `bind -m ${map} '"\\C-x\\C-k": kill-whole-line'`).join("; ")}; } 2>/dev/null`,
        ]
      : keys === null
        ? []
        : [`bind -m emacs -f ${shellQuote(keys)}${startup?.norc === true ? "" : " 2>/dev/null"}`]),
    // The marks' text, for this level (a shell set up again, nested, gets its own). A start-up file
    // assigns them with the prompts, in one command.
    ...(startup === undefined ? [names] : []),
    // Puts the marks back where a cell (or the user's PROMPT_COMMAND) replaced a prompt (`[[ ]]`,
    // not `case`: fewer characters for bash to parse at start-up), and notes the prompts as checked.
    `__atm() { [[ $PS1 == *${statusMark}* ]]||PS1=${statusMark}$PS1; ` +
      `[[ $PS2 == *${continuationMark}* ]]||PS2=${continuationMark}$PS2; ` +
      `[[ $PS0 == *${startMark}* ]]||PS0+=${startMark}; __atp=.$PS1$PS2$PS0; }`,
    // The check, run before every prompt when the prompts or the directory changed since the last
    // one (see LOOKUP): the marks are put back unless the prompts are the ones last checked (only
    // the directory changed: a `cd`), and the directory is said. (__atm is a function of its own:
    // bash copies a function's body at each call, and a `cd` needs none of it.)
    `__at() { [[ \${__atp-} == ".$PS1$PS2$PS0" ]] || __atm; ` + `${cwdMark}; __atk=(); __atk[.$PS1$PS2$PS0$PWD]=; }`,
    // From a start-up file the prompts cannot hold the marks yet: they are added without looking,
    // the prompts and the directory noted as checked and the directory said, all without calling
    // the check (that call was 4% of bash's instructions to its first prompt). Typed in-band, into a shell
    // that may have them, the check runs once the element is in place.
    // (An element assigned alone costs bash less than a list assigned to the whole array.)
    // (The prompts are not noted as checked: the first `cd` checks them, and a shell that never
    // changes directory or prompt never does.) The key is noted through the name the lookup uses.
    // (One command a line: a list joined by `;` costs bash more than its commands on lines of their own.
    // The prompts' old values unquoted: an assignment's value is neither split nor globbed.)
    ...(startup === undefined
      ? [DECLARE.join("; ")]
      : [
          `${names} PS1=${statusMark}$PS1 PS2=${continuationMark}$PS2 PS0=$PS0${startMark}${startup.norc ? ` ${NORC_PROMPT_COMMAND}` : ""}`,
          ...DECLARE,
          "__at=",
        ]),
    // Runs before every prompt (never on a redraw), after the user's own; bash keeps $? for the prompt.
    // From bash 5.1 it is an element of its own: a cell assigning PROMPT_COMMAND replaces element 0
    // only. Before 5.1 bash runs element 0 alone: the check is added to it. (Under --norc it is
    // assigned with the prompts.)
    ...(startup?.norc === true ? [] : [`((\${#PROMPT_COMMAND[@]}))||PROMPT_COMMAND=('');PROMPT_COMMAND+=(${shellQuote(LOOKUP)})`]),
    "((BASH_VERSINFO*100+BASH_VERSINFO[1]>500))||PROMPT_COMMAND+=$'\\n'${PROMPT_COMMAND[1]}",
    // The first prompt's directory (from a --norc start-up file on bash's own stdout, which is the
    // terminal: no redirection, 10 system calls less).
    startup === undefined ? "__at" : startup.norc ? cwdMark.slice(0, -" >&2".length) : cwdMark,
  ];
}
