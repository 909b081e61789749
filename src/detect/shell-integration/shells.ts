import { basename } from "node:path";
import type { PrivateFiles } from "../../internal/private-temp-dir.js";
import type { SpawnPlan } from "../types.js";
import { bashMarks, installBash } from "./bash.js";
import { fishMarks, installFish } from "./fish.js";
import { installPosix, posixMarks } from "./posix.js";
import { installZsh, zshMarks } from "./zsh.js";

/** The shells {@link shellIntegration} knows how to hook. */
export const INTEGRATED_SHELLS = ["bash", "zsh", "fish", "sh", "dash"] as const;

/** A shell `shellIntegration()` knows how to hook. */
export type Shell = (typeof INTEGRATED_SHELLS)[number];

/** Names the shell a command starts, if it is one we can hook. */
export function integratedShell(command: string): Shell | undefined {
  if (lastShell?.command !== command) lastShell = { command, shell: shellNamed(command) };
  return lastShell.shell;
}

/** The last command looked at and its shell: sessions mostly start one command, again and again. */
let lastShell: { readonly command: string; readonly shell: Shell | undefined } | undefined;

function shellNamed(command: string): Shell | undefined {
  const name = basename(command)
    .replace(/\.exe$/, "")
    .replace(/-?[\d.]+$/, "");
  return (INTEGRATED_SHELLS as readonly string[]).includes(name) ? (name as Shell) : undefined;
}

/**
 * Ctrl-X Ctrl-K, bound to clear the line editor's whole line in every keymap (emacs and vi) of
 * bash and zsh by the init file. Ctrl-U would ring the bell on an empty line (one more write per
 * cell) and means something else in vi mode; an escape sequence costs readline a timed wait.
 */
const CLEAR_KEY = "\x18\x0b";
/** fish: Ctrl-A Ctrl-K, beginning of line and kill to its end. */
const FISH_CLEAR = "\x01\x0b";
/** No line editor (sh, bash --noediting): the terminal's own kill character. */
export const TTY_KILL = "\x15";

/** What empties the shell's command line before a cell is typed (`args`: the shell's own, where known). */
export function clearKeyOf(shell: Shell, args: readonly string[] = []): string {
  if (shell === "fish") return FISH_CLEAR;
  if ((shell === "bash" && !args.includes("--noediting")) || shell === "zsh") return CLEAR_KEY;
  return TTY_KILL;
}

/** The commands that install the marks in `shell`: joined by newlines in a start-up file, by "; " when typed in-band. */
export function marksOf(shell: Shell, prefix: string): string[] {
  if (shell === "bash") return bashMarks(prefix);
  if (shell === "zsh") return zshMarks(prefix);
  if (shell === "fish") return fishMarks(prefix);
  return posixMarks(prefix);
}

/** Writes `shell`'s start-up files (ours, loading the user's) as private `files` and returns the plan that starts it with them. */
export function installShell(shell: Shell, plan: SpawnPlan, files: PrivateFiles, prefix: string): SpawnPlan {
  if (shell === "bash") return installBash(plan, files, prefix);
  if (shell === "zsh") return installZsh(plan, files, prefix);
  if (shell === "fish") return installFish(plan, files, prefix);
  return installPosix(plan, files, prefix);
}
