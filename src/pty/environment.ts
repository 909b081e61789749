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

const HARDENED_KEYS = Object.keys(HARDENED_ENV);

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
  // process.env is read once, into a plain object the rest works on: each read of process.env is a
  // call into C++ that searches the environment and makes new strings, and a spread of it asks for
  // every value twice (its descriptor, then its value): a loop over its keys reads each once.
  // Indexed loops, not for-of: each step of an array's iterator is an object on the heap (~2 kB a spawn).
  const env: Record<string, string | undefined> = {};
  if (extend) {
    const inherited = process.env;
    const keys = Object.keys(inherited);
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      if (key === "__proto__") define(env, key, inherited[key]);
      else env[key] = inherited[key];
    }
  }
  for (let index = 0; index < PARENT_TERMINAL_ENV.length; index++) {
    const key = PARENT_TERMINAL_ENV[index] as string;
    if (env[key] !== undefined) delete env[key];
  }
  if (harden) {
    for (let index = 0; index < HARDENED_KEYS.length; index++) {
      const key = HARDENED_KEYS[index] as string;
      env[key] = HARDENED_ENV[key];
    }
  }
  const term = env["TERM"];
  if (term === undefined || term === "" || term === "dumb") env["TERM"] = "xterm-256color";
  const givenKeys = Object.keys(given);
  for (let index = 0; index < givenKeys.length; index++) {
    const key = givenKeys[index] as string;
    const value = given[key];
    if (value === undefined) delete env[key];
    else if (key === "__proto__") define(env, key, value);
    else env[key] = value;
  }
  // A locale the caller gives is theirs (`LC_ALL: "C"` to test a program's ASCII output); an inherited
  // one that is not UTF-8 (a container's POSIX default) gets the UTF-8 default.
  const givenLocale = isSet(given["LC_ALL"]) || isSet(given["LC_CTYPE"]) || isSet(given["LANG"]);
  const locale = env["LC_ALL"] ?? env["LC_CTYPE"] ?? env["LANG"];
  if (!givenLocale && (locale === undefined || locale === "" || !/utf-?8/i.test(locale))) {
    const all = env["LC_ALL"];
    if (all !== undefined && all !== "") env["LC_ALL"] = "C.UTF-8";
    else env["LANG"] = "C.UTF-8";
    if (env["LC_CTYPE"] !== undefined) env["LC_CTYPE"] = "C.UTF-8";
  }
  const defaultKeys = Object.keys(defaults);
  for (let index = 0; index < defaultKeys.length; index++) {
    const key = defaultKeys[index] as string;
    if (env[key] === undefined) env[key] = defaults[key];
  }
  return env as Record<string, string>;
}

/** A value given for a variable, not empty. */
function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== "";
}

/** Sets a variable named `__proto__` as a variable (an assignment would set the object's prototype). */
function define(env: Record<string, string | undefined>, key: string, value: string | undefined): void {
  Object.defineProperty(env, key, { value, enumerable: true, writable: true, configurable: true });
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

/** `statSync`'s options for a path that may be missing (made once: the PATH lookup stats several a spawn). */
const NO_THROW_IF_MISSING = Object.freeze({ throwIfNoEntry: false } as const);

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
    if (statSync(path, NO_THROW_IF_MISSING)?.isFile() !== true) return "missing";
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

const NO_OPTIONS = Object.freeze({});

/** An existing file this process may execute. */
export function isExecutable(path: string): boolean {
  return executableProblem(path, NO_OPTIONS) === null;
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
  if (lastLookup?.command !== command || lastLookup.path !== path) lastLookup = { command, path, candidates: candidatesOf(command, path) };
  const candidates = lastLookup.candidates;
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index] as string;
    if (isExecutable(candidate)) return candidate;
  }
  throw new SpawnError("ERR_SPAWN", command, `cannot start '${command}': command not found on PATH; install it or pass its full path`);
}

/**
 * The last PATH lookup's command, PATH and the paths it tries, in order: sessions mostly start one
 * command with one PATH, and the paths are the same each time (only the files are looked at again).
 */
let lastLookup: { readonly command: string; readonly path: string | undefined; readonly candidates: readonly string[] } | undefined;

/** Where `command` may be on `path`, in order, each directory once. */
function candidatesOf(command: string, path: string | undefined): string[] {
  const candidates: string[] = [];
  const dirs = (path ?? "").split(delimiter);
  for (let index = 0; index < dirs.length; index++) {
    const dir = dirs[index] as string;
    // An entry PATH repeats (rc files that add to it at every start) answered already: a miss.
    if (dir === "" || dirs.indexOf(dir) < index) continue;
    candidates.push(isPlainAbsoluteDir(dir) ? `${dir}/${command}` : join(dir, command));
  }
  return candidates;
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
