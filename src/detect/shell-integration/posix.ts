import type { PrivateFiles } from "../../internal/private-temp-dir.js";
import type { SpawnPlan } from "../types.js";
import { shellQuote } from "./quote.js";

/** POSIX sh (dash): no PS0 or PROMPT_COMMAND, but PS1 is expanded each time and `$ENV` is read: ours loads the user's. */
export function installPosix(plan: SpawnPlan, files: PrivateFiles, markPrefix: string): SpawnPlan {
  const userEnv = plan.env["ENV"];
  const script = [
    "# agent-tty shell integration: loads the user's $ENV file, then adds invisible frame marks.",
    userEnv === undefined ? "" : `[ -r ${shellQuote(userEnv)} ] && . ${shellQuote(userEnv)}`,
    ...posixMarks(markPrefix),
    "",
  ].join("\n");
  return { ...plan, env: { ...plan.env, ENV: files.write("env.sh", script) } };
}

/** POSIX sh (dash): PS1 carries the marks; cells are wrapped in start/end functions. */
export function posixMarks(prefix: string): string[] {
  const mark = (kind: string) => `\\033]${prefix}${kind}\\007`;
  return [
    `__agent_tty_start() { printf '${mark("C")}'; }`,
    `__agent_tty_status="$(printf '\\033]${prefix}D;')" __agent_tty_bel="$(printf '\\007')" __agent_tty_ready="$(printf '${mark("B")}')"`,
    // The prompt carries the marks; a cell that replaced it gets them back when it ends.
    `__agent_tty_marks() { case "$PS1" in *"$__agent_tty_ready"*) ;; *) PS1="$__agent_tty_status"'$?;$PWD'"$__agent_tty_bel\${PS1-'$ '}$__agent_tty_ready" ;; esac; }`,
    "__agent_tty_marks",
    `__agent_tty_end() { __agent_tty_s=$?; __agent_tty_marks; return $__agent_tty_s; }`,
  ];
}
