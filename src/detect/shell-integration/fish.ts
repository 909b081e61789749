import type { PrivateFiles } from "../../internal/private-temp-dir.js";
import type { SpawnPlan } from "../types.js";

/** Starts fish with `--init-command` sourcing our file (fish loads the user's config itself). */
export function installFish(plan: SpawnPlan, files: PrivateFiles, markPrefix: string): SpawnPlan {
  const initFile = files.write("init.fish", [...fishMarks(markPrefix), "set -g fish_greeting ''"].join("\n"));
  return { ...plan, args: ["--init-command", `source '${initFile}'`, ...plan.args] };
}

/** fish: events for start and status, the user's prompt wrapped to end with the ready mark. */
export function fishMarks(prefix: string): string[] {
  return [
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
    '  test "$details[5]" = agent-tty; or __agent_tty_wrap_prompt',
    "end",
    // Ctrl-C on a command line (an incomplete cell, an interrupt before it ran) redraws the prompt
    // without running fish_prompt again: the status mark comes from the cancel event instead.
    `function __agent_tty_cancel --on-event fish_cancel; printf '\\e]${prefix}D;130;%s\\a' $PWD; set -g __agent_tty_marked 1; end`,
    `function fish_right_prompt; end`,
  ];
}
