/**
 * `k`'s command line, parsed the way the original agent-tty parses it
 * (same verbs, flags, fall-backs and words). Pure: the caller passes the
 * environment and working directory.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { FIRE_TIMEOUT_S, isValidSessionName, RUN_TIMEOUT_S, type Request } from "../shared/protocol.js";
import { pyRepr } from "../shared/python.js";

/** What to do for one `k` invocation. */
export type Plan =
  | { kind: "print"; stdout: string; exit: number }
  | { kind: "version" }
  | { kind: "daemon"; action: string }
  | { kind: "request"; request: Request };

/** What `parseArgs` needs from the process. */
export interface ArgContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** For `k notify`'s "from": `<parent command>@k:<pid>`. */
  from: () => string;
  /** Whether stdout is a terminal (colors in `watch`/`history`). */
  color: boolean;
  /** The terminal size for `attach`. */
  size: () => [number, number];
}

export const USAGE = `k -- persistent terminal sessions for AI agents (agent-tty)

Usage:
  k new     <session> [cmd...] [--prompt="x"]   start a session (default: bash)
  k new     <session> <cmd> --prompt=./hook     hook mode: an executable fed output lines, its exit ends the cell
  k run     [-j] [-t N] [session] <code>        run a cell and wait (default 30 s); -j prints JSON
  k await   ...                                 same as run
  k fire    [-t N] [session] <code>             start a cell, return at once (default 300 s)
  k poll    [session] [cell_id]                 result of a fired cell (O(1))
  k int     [session]                           Ctrl-C: the active cell ends "interrupted", lock released
  k kill    <session>                           end the session
  k ls                                          sessions with their state and running cell
  k status  [session]                           state and the next command to use
  k watch   [session]                           live filtered view (Ctrl-C to stop)
  k history [-n N] [session]                    last N*5 lines of the filtered view (default 5)
  k notify  [session] <message>                 an event that km and watch show
  k attach  [session]                           take over the terminal; Ctrl-] detaches
  k screen  [session]                           what the terminal shows now
  k keys    [session] <key>...                  press keys: enter, tab, esc, up, ctrl+c, f1, ...
  k type    [session] <text>                    type text literally (no Enter)
  k expect  [session] <pattern> [-t N] [-j]     wait until the output matches a regex
  k daemon  status|stop|start                   the per-user session daemon
  k --version                                   also -V, version

Options of new: --label="text", --description="text".
Session: explicit argument > K_SESSION > the only session.
A timed-out cell keeps the lock: only k int or k kill releases it.

JSON (-j, fire, poll):
  {"cell_id": "...", "status": "fired"}
  {"cell_id": "...", "status": "running"}
  {"cell_id": "...", "status": "done", "output": "...", "exit_code": 0, "cwd": "..."}
  {"cell_id": "...", "status": "timeout", "output": ""}
  {"cell_id": "...", "status": "timeout", "output": "use k int or k kill"}
  {"status": "error", "output": "..."}
  {"cell_id": "...", "status": "error", "output": "interrupted"}

Events: km <session> [cell_id] [-1] prints one JSON event per line.`;

const RUN_USAGE = "usage: k run [-j] [-t N] [session] <code>";
const FIRE_USAGE = "usage: k fire [-t N] [session] <code>";
const HISTORY_USAGE = "usage: k history [-n N] [session]";
const EXPECT_USAGE = "usage: k expect [session] <pattern> [-t N] [-j]";

class ParseExit extends Error {
  constructor(
    readonly stdout: string,
    readonly exit: number,
  ) {
    super(stdout);
  }
}

function fail(stdout: string): never {
  throw new ParseExit(stdout.endsWith("\n") ? stdout : `${stdout}\n`, 1);
}

/** Python's `int()` on a flag value, then > 0; else the original's two lines. */
function positiveInt(raw: string | undefined, option: string, usage: string): number {
  if (raw === undefined) fail(usage);
  const text = raw.trim().replace(/_/g, "");
  if (!/^[+-]?\d+$/.test(text) || Number(text) <= 0 || !Number.isSafeInteger(Number(text))) {
    fail(`ERR ${option} must be a positive integer\n${usage}`);
  }
  return Number(text);
}

function checkName(name: string): string {
  if (!isValidSessionName(name)) fail(`ERR invalid session name: ${pyRepr(name)}`);
  return name;
}

/** Explicit session, else K_SESSION, else null (the daemon picks the only one). */
function resolveSession(explicit: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (explicit) return checkName(explicit);
  const fromEnv = env["K_SESSION"];
  if (fromEnv) return checkName(fromEnv);
  return null;
}

/** `[-j] [-t N] [session] <code>` of `k run` and `k fire` (`-j` only where `json` is allowed). */
function parseCell(
  words: string[],
  env: NodeJS.ProcessEnv,
  usage: string,
  timeoutS: number,
  allowJson: boolean,
): { session: string | null; code: string; timeoutMs: number; json: boolean } {
  let rest = words;
  let timeout = timeoutS;
  let json = false;
  while (rest[0]?.startsWith("-")) {
    if (rest[0] === "-t") {
      if (rest.length < 2) fail(usage);
      timeout = positiveInt(rest[1], "-t", usage);
      rest = rest.slice(2);
    } else if (allowJson && rest[0] === "-j") {
      json = true;
      rest = rest.slice(1);
    } else break;
  }
  if (rest.length === 0) fail(usage);
  const session = rest.length >= 2 ? checkName(rest[0] ?? "") : resolveSession(undefined, env);
  return { session, code: (rest.length >= 2 ? rest[1] : rest[0]) ?? "", timeoutMs: timeout * 1000, json };
}

function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  return path;
}

function cleanEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Parses `k`'s arguments (without `node` and the script). */
export function parseArgs(argv: readonly string[], ctx: ArgContext): Plan {
  try {
    return parse([...argv], ctx);
  } catch (error) {
    if (error instanceof ParseExit) return { kind: "print", stdout: error.stdout, exit: error.exit };
    throw error;
  }
}

function parse(args: string[], ctx: ArgContext): Plan {
  const verb = args[0];
  if (verb === "--version" || verb === "-V" || verb === "version") return { kind: "version" };
  if (verb === undefined || verb === "-h" || verb === "--help" || verb === "help") {
    return { kind: "print", stdout: `${USAGE}\n`, exit: 0 };
  }
  let rest = args.slice(1);
  const { env } = ctx;
  const request = (req: Request): Plan => ({ kind: "request", request: req });

  switch (verb) {
    case "new": {
      if (rest.length === 0) break;
      const session = checkName(rest[0] ?? "");
      let prompt: string | null = null;
      let label: string | null = null;
      let description: string | null = null;
      const words: string[] = [];
      for (const arg of rest.slice(1)) {
        if (arg.startsWith("--prompt=")) prompt = arg.slice("--prompt=".length);
        else if (arg.startsWith("--label=")) label = arg.slice("--label=".length);
        else if (arg.startsWith("--description=")) description = arg.slice("--description=".length);
        else words.push(arg);
      }
      let hook: string | null = null;
      if (prompt !== null && prompt.includes("/")) {
        hook = resolve(ctx.cwd, expandHome(prompt));
        prompt = null;
      }
      return request({
        op: "new",
        session,
        command: words.length > 0 ? words.join(" ") : null,
        prompt: prompt === "" ? null : prompt,
        hook,
        label,
        description,
        cwd: ctx.cwd,
        env: cleanEnv(env),
      });
    }
    case "kill":
      if (rest.length === 0) break;
      return request({ op: "kill", session: checkName(rest[0] ?? "") });
    case "ls":
      return request({ op: "ls" });
    case "run":
    case "await": {
      const cell = parseCell(rest, env, RUN_USAGE, RUN_TIMEOUT_S, true);
      return request({ op: "run", session: cell.session, code: cell.code, timeoutMs: cell.timeoutMs, json: cell.json });
    }
    case "fire": {
      if (rest.length === 0) break;
      const cell = parseCell(rest, env, FIRE_USAGE, FIRE_TIMEOUT_S, false);
      return request({ op: "fire", session: cell.session, code: cell.code, timeoutMs: cell.timeoutMs });
    }
    case "poll":
      return request({ op: "poll", session: resolveSession(rest[0], env), cellId: rest[1] ?? null });
    case "notify":
      if (rest.length === 0) break;
      return request({ op: "notify", session: resolveSession(undefined, env), words: rest, from: ctx.from() });
    case "int":
      return request({ op: "int", session: resolveSession(rest[0], env) });
    case "status":
      return request({ op: "status", session: resolveSession(rest[0], env) });
    case "watch":
      return request({ op: "watch", session: resolveSession(rest[0], env), color: ctx.color });
    case "history": {
      let n = 5;
      if (rest[0] === "-n") {
        if (rest.length < 2) fail(HISTORY_USAGE);
        n = positiveInt(rest[1], "-n", HISTORY_USAGE);
        rest = rest.slice(2);
      }
      return request({ op: "history", session: resolveSession(rest[0], env), n, color: ctx.color });
    }
    case "screen":
      return request({ op: "screen", session: resolveSession(rest[0], env) });
    case "attach": {
      const [cols, rows] = ctx.size();
      return request({ op: "attach", session: resolveSession(rest[0], env), cols, rows });
    }
    case "keys":
      if (rest.length === 0) fail("usage: k keys [session] <key>...");
      return request({ op: "keys", session: resolveSession(undefined, env), words: rest });
    case "type":
      if (rest.length === 0 || rest.length > 2) fail("usage: k type [session] <text>");
      if (rest.length === 2) checkName(rest[0] ?? "");
      return request({
        op: "type",
        session: rest.length === 2 ? (rest[0] ?? null) : resolveSession(undefined, env),
        text: rest.at(-1) ?? "",
      });
    case "expect": {
      let timeout = RUN_TIMEOUT_S;
      let json = false;
      const words: string[] = [];
      for (let i = 0; i < rest.length; i++) {
        const arg = rest[i] ?? "";
        if (arg === "-t") {
          timeout = positiveInt(rest[i + 1], "-t", EXPECT_USAGE);
          i++;
        } else if (arg === "-j") json = true;
        else words.push(arg);
      }
      if (words.length === 0 || words.length > 2) fail(EXPECT_USAGE);
      if (words.length === 2) checkName(words[0] ?? "");
      return request({ op: "expect", session: resolveSession(undefined, env), words, timeoutMs: timeout * 1000, json });
    }
    case "daemon":
      return { kind: "daemon", action: rest[0] ?? "status" };
    default:
      break;
  }
  return { kind: "print", stdout: `${USAGE}\n`, exit: 1 };
}
