import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { SpawnError } from "../errors.js";

/** Variables set by `hardenEnv`: no pager, editor or credential prompt can stall a cell. */
const HARDENED_ENV: Readonly<Record<string, string>> = Object.freeze({
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  PSQL_PAGER: "cat",
  GIT_EDITOR: "true",
  GIT_TERMINAL_PROMPT: "0",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  PYTHON_BASIC_REPL: "1",
});

/** Variables that describe the parent's terminal, not ours. */
const PARENT_TERMINAL_ENV = ["COLUMNS", "LINES", "TMUX", "TMUX_PANE", "STY", "WINDOW", "TERMCAP", "WINDOWID"] as const;

/**
 * The program's environment: `process.env` (unless `extend` is false), then the given values (which
 * win; `undefined` removes one), `TERM=xterm-256color` and a UTF-8 locale
 * unless the caller gave one (`LC_ALL`, `LC_CTYPE` or `LANG`, kept as given)
 * or the inherited one is UTF-8, the hardened variables unless given, and
 * `defaults` where neither `process.env` nor `given` set them.
 */
export function buildEnvironment(
  given: Readonly<Record<string, string | undefined>>,
  harden: boolean,
  extend = true,
  defaults: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const inherited: Readonly<Record<string, string | undefined>> = extend ? process.env : {};
  // What differs from process.env (`undefined`: removed), applied by one spread at the end: keys added
  // one by one to a copy of process.env make it a slow dictionary (5 kB of garbage per spawn), and
  // each read of process.env makes new strings.
  const changes: Record<string, string | undefined> = {};
  const current = (key: string): string | undefined => (key in changes ? changes[key] : inherited[key]);
  for (const key of PARENT_TERMINAL_ENV) if (inherited[key] !== undefined) changes[key] = undefined;
  if (harden) Object.assign(changes, HARDENED_ENV);
  const term = current("TERM");
  if (term === undefined || term === "" || term === "dumb") changes["TERM"] = "xterm-256color";
  for (const key of Object.keys(given)) changes[key] = given[key];
  // A locale the caller gives is theirs (`LC_ALL: "C"` to test a program's ASCII output); an inherited
  // one that is not UTF-8 (a container's POSIX default) gets the UTF-8 default.
  const givenLocale = ["LC_ALL", "LC_CTYPE", "LANG"].some((key) => given[key] !== undefined && given[key] !== "");
  const locale = current("LC_ALL") ?? current("LC_CTYPE") ?? current("LANG");
  if (!givenLocale && (locale === undefined || locale === "" || !/utf-?8/i.test(locale))) {
    const all = current("LC_ALL");
    if (all !== undefined && all !== "") changes["LC_ALL"] = "C.UTF-8";
    else changes["LANG"] = "C.UTF-8";
    if (current("LC_CTYPE") !== undefined) changes["LC_CTYPE"] = "C.UTF-8";
  }
  for (const key of Object.keys(defaults)) if (current(key) === undefined) changes[key] = defaults[key];
  const env = { ...inherited, ...changes };
  for (const key of Object.keys(changes)) if (env[key] === undefined) delete env[key];
  return env as Record<string, string>;
}

/** Throws `ERR_SPAWN` unless `cwd` is an existing directory. */
export function checkCwd(cwd: string, command: string): void {
  // `cwd/.` exists only when cwd is a directory we may search: answered without an fs.Stats (and its
  // four Dates) in the usual case; the rest goes to stat for the exact answer.
  if (cwd !== "" && existsSync(`${cwd}/.`)) return;
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) {
    throw new SpawnError(
      "ERR_SPAWN",
      command,
      `cannot start '${command}': cwd '${cwd}' is not an existing directory; create it or pass another cwd`,
    );
  }
}

/** What keeps a path from being a program this process may start (see {@link executableProblem}). */
export type ExecutableProblem = "missing" | "unreadable" | "not-executable";

/**
 * What keeps `path` from being a file this process may execute, or `null`:
 * `"missing"` (no such regular file), `"unreadable"` (checked only with
 * `readable`: a script's interpreter must read it), `"not-executable"`. The
 * one executable check of the code base (PATH lookup, hooks, the daemon's
 * `k new --prompt=./hook`).
 */
export function executableProblem(path: string, options: { readonly readable?: boolean } = {}): ExecutableProblem | null {
  try {
    // Most PATH entries miss: those are answered without the cost of a thrown error.
    if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) return "missing";
  } catch {
    return "missing";
  }
  if (options.readable === true) {
    try {
      accessSync(path, constants.R_OK);
    } catch {
      return "unreadable";
    }
  }
  try {
    accessSync(path, constants.X_OK);
    return null;
  } catch {
    return "not-executable";
  }
}

/** An existing file this process may execute. */
export function isExecutable(path: string): boolean {
  return executableProblem(path) === null;
}

/**
 * The executable `command` names, looked up on `PATH` like a shell would.
 * @throws {SpawnError} `ERR_SPAWN` when there is none.
 */
export function resolveCommand(command: string, path: string | undefined): string {
  if (command.includes("/")) {
    const absolute = isAbsolute(command) ? command : resolve(command);
    if (isExecutable(absolute)) return absolute;
    throw new SpawnError(
      "ERR_SPAWN",
      command,
      `cannot start '${command}': no executable file at '${absolute}'; check the path and its permissions`,
    );
  }
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = isPlainAbsoluteDir(dir) ? `${dir}/${command}` : join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  throw new SpawnError("ERR_SPAWN", command, `cannot start '${command}': command not found on PATH; install it or pass its full path`);
}

/** A directory whose `join` with a name is plain concatenation (absolute, nothing to normalize): most PATH entries. */
function isPlainAbsoluteDir(dir: string): boolean {
  return (
    dir.startsWith("/") &&
    !dir.endsWith("/") &&
    !dir.endsWith("/.") &&
    !dir.endsWith("/..") &&
    !dir.includes("//") &&
    !dir.includes("/./") &&
    !dir.includes("/../")
  );
}
