import type { PrivateFiles } from "../../internal/private-temp-dir.js";
import type { SpawnPlan } from "../types.js";
import { shellQuote } from "./quote.js";

/** Starts zsh with `ZDOTDIR` pointing at our files, each of which loads the user's own. */
export function installZsh(plan: SpawnPlan, files: PrivateFiles, markPrefix: string): SpawnPlan {
  const dir = files.dir();
  // zsh reads its files from $ZDOTDIR: ours are there, and each loads the user's own from where
  // they would have been (their ZDOTDIR, or HOME). With -f, ours load none of the user's.
  const noRcs = plan.args.some((arg) => arg === "-f" || arg === "--no-rcs");
  const args = plan.args.filter((arg) => arg !== "-f" && arg !== "--no-rcs");
  const userZdotdir = plan.env["ZDOTDIR"];
  const toUser = userZdotdir === undefined ? "unset ZDOTDIR" : `ZDOTDIR=${shellQuote(userZdotdir)}`;
  const loadUser = (file: string) => (noRcs ? "" : `[[ -r \${ZDOTDIR:-$HOME}/${file} ]] && . \${ZDOTDIR:-$HOME}/${file}`);
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
  const restoreUser = "(( __agent_tty_zdotdir_set )) && ZDOTDIR=$__agent_tty_zdotdir || unset ZDOTDIR";
  const zprofile = [
    "# agent-tty shell integration: the user's .zprofile.",
    restoreUser,
    loadUser(".zprofile"),
    `ZDOTDIR=${shellQuote(dir)}`,
    "",
  ];
  const zshrc = [
    "# agent-tty shell integration: loads the user's .zshrc, then adds invisible frame marks.",
    // From here on ZDOTDIR is the user's: zsh reads their .zlogin from it, and so do their scripts.
    restoreUser,
    "unset __agent_tty_zdotdir_set __agent_tty_zdotdir",
    loadUser(".zshrc"),
    ...zshMarks(markPrefix),
    "",
  ];
  files.write(".zshenv", zshenv.join("\n"));
  files.write(".zprofile", zprofile.join("\n"));
  files.write(".zshrc", zshrc.join("\n"));
  return { ...plan, args, env: { ...plan.env, ZDOTDIR: dir } };
}

/** zsh: precmd prints the status/cwd mark, the prompt ends with the ready mark, preexec the start mark. */
export function zshMarks(prefix: string): string[] {
  const mark = (kind: string) => `%{\\e]${prefix}${kind}\\a%}`;
  const has = (kind: string) => shellQuote(`${prefix}${kind}`);
  return [
    // Cells are written like scripts: a # starts a comment, as in bash.
    "setopt INTERACTIVE_COMMENTS",
    "for __agent_tty_map in emacs viins vicmd; do bindkey -M $__agent_tty_map '^X^K' kill-buffer; done; unset __agent_tty_map",
    // Last of all precmd functions, so a theme that rewrites the prompt in its own precmd keeps the marks.
    `__agent_tty_precmd() { local ec=$?; print -rn -- $'\\e]${prefix}D;'"$ec;$PWD"$'\\a' >&2; precmd_functions=(\${precmd_functions:#__agent_tty_prompt} __agent_tty_prompt); }`,
    `__agent_tty_prompt() { [[ $PROMPT == *${has("B")}* ]] || PROMPT="$PROMPT"$'${mark("B")}'; [[ $PROMPT2 == *${has("P")}* ]] || PROMPT2=$'${mark("P")}'"$PROMPT2"; }`,
    `__agent_tty_preexec() { print -rn -- $'\\e]${prefix}C\\a'; }`,
    "autoload -Uz add-zsh-hook",
    "add-zsh-hook preexec __agent_tty_preexec",
    // First of all precmd functions: the status is the cell's, before any other hook runs.
    "precmd_functions=(__agent_tty_precmd ${precmd_functions:#__agent_tty_precmd} __agent_tty_prompt)",
    "unsetopt PROMPT_SP 2>/dev/null",
  ];
}
