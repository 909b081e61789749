import { basename } from "node:path";
import { prompt } from "./prompt.js";
import { pythonReplLines } from "./python.js";
import { GDB, IRB, LUA, MYSQL, mysqlCancelLine, NODE, PSQL, PYTHON, REDIS_CLI, SQLITE3, sqliteCancelLine } from "./repl-prompts.js";
import { inputWait } from "./input-wait.js";
import { startsRemoteShell } from "./nested.js";
import { integratedShell, shellIntegration } from "./shell-integration/index.js";
import type { FrameDetector, SpawnPlan } from "./types.js";

/** Options a program needs to behave as a line-protocol REPL under a detector. */
function withSetup(detector: FrameDetector, setup: (plan: SpawnPlan) => SpawnPlan): FrameDetector {
  return Object.assign(detector, { setup });
}

/** The prompt detectors of the REPLs `"auto"` knows, by program name. */
const REPLS: Record<string, () => FrameDetector> = {
  python: () => prompt(PYTHON.prompt, { continuation: PYTHON.continuation, prepare: pythonReplLines, name: "prompt" }),
  node: () =>
    withSetup(prompt(NODE.prompt, { continuation: NODE.continuation }), (plan) => ({
      ...plan,
      env: { NODE_DISABLE_COLORS: "1", NODE_REPL_HISTORY: "", ...plan.env },
    })),
  gdb: () =>
    withSetup(prompt(GDB.prompt), (plan) => ({
      ...plan,
      args: ["-iex", "set pagination off", "-iex", "set width 0", "-iex", "set height 0", ...plan.args],
    })),
  // Ctrl-C leaves sqlite3 holding the unfinished statement: end it with an error instead.
  sqlite3: () => prompt(SQLITE3.prompt, { continuation: SQLITE3.continuation, cancelIncomplete: sqliteCancelLine }),
  psql: () => prompt(PSQL.prompt, { continuation: PSQL.continuation }),
  // `\c` clears the statement in every client version (Ctrl-C ends older ones).
  mysql: () => prompt(MYSQL.prompt, { continuation: MYSQL.continuation, cancelIncomplete: mysqlCancelLine }),
  mariadb: () => prompt(MYSQL.prompt, { continuation: MYSQL.continuation, cancelIncomplete: mysqlCancelLine }),
  "redis-cli": () => prompt(REDIS_CLI.prompt),
  irb: () => prompt(IRB.prompt, { continuation: IRB.continuation }),
  // Ctrl-C at lua's prompt ends lua (its handler is set only while code runs): wait for the rest.
  lua: () => prompt(LUA.prompt, { continuation: LUA.continuation, cancelIncomplete: false }),
};

/** The program a command runs, without path or version: `/usr/bin/python3.12` → `python`. */
export function programName(command: string): string {
  return basename(command)
    .replace(/\.exe$/, "")
    .replace(/[\d.]+$/, "");
}

/** Runs a script rather than an interactive prompt. */
function runsScript(args: readonly string[]): boolean {
  if (args.includes("-i")) return false;
  return args.some((arg) => arg === "-c" || arg === "-e" || (!arg.startsWith("-") && /\.(py|js|mjs|cjs|sh|rb|lua)$/.test(arg)));
}

/**
 * The prompt detector of a REPL `"auto"` knows (python, node, gdb, sqlite3, psql, mysql/mariadb,
 * redis-cli, irb, lua), when the command starts one interactively; `undefined` otherwise.
 */
export function replDetector(command: string, args: readonly string[]): FrameDetector | undefined {
  const debugger_ = debuggerDetector(programName(command), args);
  if (debugger_ !== undefined) return debugger_;
  const make = REPLS[basename(command)] ?? REPLS[programName(command)];
  return make !== undefined && !runsScript(args) ? make() : undefined;
}

/**
 * The debuggers a script runs under: `python3 -m pdb script.py` (`(Pdb) `) and `node inspect
 * script.js` (`debug> `, printed before the command's own output arrives: the frame ends once
 * output has settled after it).
 */
function debuggerDetector(name: string, args: readonly string[]): FrameDetector | undefined {
  if (name === "python" && args[0] === "-m" && args[1] === "pdb") return prompt(/^\(Pdb\) $/);
  if (name === "node" && args[0] === "inspect") return prompt(/^debug> $/, { settleMs: 200 });
  return undefined;
}

/** Prompts that tell a known REPL when its process cannot be seen (inside ssh): the prompt, then the REPL. */
const REPL_PROMPTS: ReadonlyArray<readonly [RegExp, string]> = [
  [PYTHON.prompt, "python"],
  [GDB.prompt, "gdb"],
  [SQLITE3.prompt, "sqlite3"],
  [PSQL.prompt, "psql"],
  [MYSQL.prompt, "mysql"],
  [IRB.prompt, "irb"],
];

/** The prompt detector of the known REPL whose prompt `line` is (python's `>>> `, psql's `db=# `…), if any. */
export function replDetectorForPrompt(line: string): FrameDetector | undefined {
  const found = REPL_PROMPTS.find(([pattern]) => pattern.test(line));
  return found === undefined ? undefined : REPLS[found[1]]?.();
}

/**
 * What `detector: "auto"` picks: shell integration for bash, zsh, fish and sh; shell
 * integration typed in-band for `ssh host`, `docker`/`podman exec -it` and `kubectl exec -it`; a
 * prompt detector for python, node, gdb, sqlite3, psql, the mysql / mariadb client, redis-cli, irb
 * and lua, and for the pdb and `node inspect` debuggers; otherwise `inputWait()`, which types nothing
 * but the cell (repeat-enter's empty Enters repeat the last command in gdb-like programs).
 */
export function autoDetector(command: string, args: readonly string[]): FrameDetector {
  if (integratedShell(command) !== undefined && !runsScript(args)) return shellIntegration();
  if (startsRemoteShell(command, args)) return shellIntegration({ inBand: true });
  return replDetector(command, args) ?? inputWait();
}
