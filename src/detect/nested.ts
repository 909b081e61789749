import { basename } from "node:path";

/**
 * An interactive program a cell started that now has the terminal: a
 * sub-shell, a remote shell (ssh, `docker exec`, `kubectl exec`) or a REPL.
 * Cells go to the innermost one until it ends.
 */
export interface NestedProgram {
  /** The program's name (`comm`): `"ssh"`, `"bash"`, `"python3"`. */
  readonly name: string;
  /**
   * Its process id on this machine (the leader of the foreground process group); `null` for a
   * program started inside a remote level (its process is on the far side).
   */
  readonly pid: number | null;
  /** Its command line, space-joined (`"ssh -p 2222 me@host"`); inside a remote level, the cell's line that started it. */
  readonly commandLine: string;
  /** `"shell"`: framed by shell integration typed in-band; `"repl"`: by the REPL's prompt. */
  readonly kind: "shell" | "repl";
  /** For `"shell"`: the shell that answered on the far side (`"bash"`, `"zsh"`, `"fish"`, `"sh"`). */
  readonly shell?: string;
  /** True when the program reaches another machine or container (its processes cannot be signalled from here). */
  readonly remote: boolean;
  /** 1 for a program started from the session's own program, 2 for one started inside that, and so on. */
  readonly depth: number;
}

/** A nested program that ended, as the cell during which it ended reports it. */
export interface LeftProgram extends NestedProgram {
  /** The status the program it returned to saw (ssh's own: 255 when the connection failed). */
  readonly exitCode: number | null;
  /** `"exit"` (it ended: `exit`, Ctrl-D, a signal) or `"connection_lost"` (ssh exited 255 without a cell asking it to). */
  readonly reason: "exit" | "connection_lost";
}

/**
 * How a cell changed the stack of nested programs (`CellResult.nested`):
 * the program it entered, or those it left, and the stack after the cell.
 */
export interface NestingChange {
  /** The program the cell started, which now gets the next cells. */
  readonly entered?: NestedProgram;
  /** The programs that ended during the cell, innermost first. */
  readonly left?: readonly LeftProgram[];
  /** Every nested program now running, outermost first (empty: back at the session's own program). */
  readonly stack: readonly NestedProgram[];
}

/** Programs that reach a shell elsewhere: their far side is probed for its shell. */
export const REMOTE_PROGRAMS: ReadonlySet<string> = new Set(["ssh", "docker", "podman", "kubectl", "mosh-client"]);
/** Programs that start a local shell as someone else. */
const SWITCH_USER = new Set(["su", "sudo", "doas", "runuser", "machinectl", "nsenter", "chroot", "unshare"]);

/** ssh options that take a value (the destination is the first argument that is not an option or its value). */
const SSH_VALUE_OPTIONS = new Set("BbcDEeFIiJLlmOoPpQRSWw".split("").map((letter) => `-${letter}`));

/** What `ssh …` would do with these arguments: an interactive login (no remote command), and where to. */
function sshIsInteractive(args: readonly string[]): boolean {
  let index = 0;
  while (index < args.length) {
    const arg = args[index] as string;
    if (arg === "--") {
      index++;
      break;
    }
    if (!arg.startsWith("-")) break;
    index += SSH_VALUE_OPTIONS.has(arg) ? 2 : 1;
  }
  // The destination, then nothing: a login shell.
  return args.length - index === 1;
}

/** `docker exec -it ctr sh`, `kubectl exec -it pod -- bash`: a terminal is asked for. */
function asksForTerminal(args: readonly string[]): boolean {
  return args.some((arg) => arg === "--tty" || arg === "-t" || /^-[a-zA-Z]*t[a-zA-Z]*$/.test(arg));
}

/**
 * Whether a command line starts a shell on another machine or in a container that
 * shell integration can be typed into: `ssh host` (no remote command),
 * `docker`/`podman exec -it`, `kubectl exec -it`.
 */
export function startsRemoteShell(command: string, args: readonly string[]): boolean {
  const name = basename(command);
  if (name === "ssh") return sshIsInteractive(args);
  if (name === "docker" || name === "podman") return (args.includes("exec") || args.includes("run")) && asksForTerminal(args);
  if (name === "kubectl") return args.includes("exec") && asksForTerminal(args);
  return false;
}

/** How a foreground program is framed once nested, if it can be: `"shell"`, `"repl"`, or `undefined` (left alone). */
export type NestedKind = { readonly kind: "shell"; readonly remote: boolean } | { readonly kind: "repl" } | undefined;

/**
 * Classifies the program a cell left in the foreground. `isShell` and `isRepl` name the shells and
 * REPLs framing knows; `commandLine` is its argv.
 */
export function classifyNested(
  commandLine: readonly string[],
  isShell: (command: string) => boolean,
  isRepl: (command: string, args: readonly string[]) => boolean,
): NestedKind {
  const [command = "", ...args] = commandLine;
  const name = basename(command).replace(/^-/, ""); // a login shell's argv[0] is "-bash"
  if (REMOTE_PROGRAMS.has(name))
    return startsRemoteShell(name, args) || name === "mosh-client" ? { kind: "shell", remote: true } : undefined;
  if (SWITCH_USER.has(name)) return { kind: "shell", remote: false };
  if (isShell(name)) {
    // `bash script.sh` or `bash -c …` waiting for input is a script reading, not a shell.
    const runsSomething = args.some((arg) => arg === "-c" || (!arg.startsWith("-") && arg !== ""));
    return runsSomething && !args.includes("-i") ? undefined : { kind: "shell", remote: false };
  }
  if (isRepl(command, args)) return { kind: "repl" };
  return undefined;
}
