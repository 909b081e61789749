import { readdirSync, readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect } from "vitest";
import { AgentTtyError } from "../../src/index.js";

export { recordRaw } from "./sessions.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Collects garbage so a memory baseline means something. */
export function collectGarbage(): void {
  gc();
  gc();
}

/** Memory of this process, sampled every `intervalMs` until stopped: the peaks above a baseline taken at start. */
export function sampleMemory(intervalMs = 50): { stop: () => { rssGrowthMb: number; heapGrowthMb: number } } {
  collectGarbage();
  const base = process.memoryUsage();
  let rss = base.rss;
  let heap = base.heapUsed;
  const take = () => {
    const now = process.memoryUsage();
    rss = Math.max(rss, now.rss);
    heap = Math.max(heap, now.heapUsed);
  };
  const timer = setInterval(take, intervalMs);
  return {
    stop: () => {
      take();
      clearInterval(timer);
      const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
      return { rssGrowthMb: mb(rss - base.rss), heapGrowthMb: mb(heap - base.heapUsed) };
    },
  };
}

interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly sid: number;
  readonly state: string;
  readonly comm: string;
}

/** Every process in /proc, parsed from its stat line. */
export function processTable(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      entries.push({
        pid,
        comm: stat.slice(stat.indexOf("(") + 1, close),
        state: fields[0] ?? "?",
        ppid: Number(fields[1]),
        sid: Number(fields[3]),
      });
    } catch {
      // gone meanwhile
    }
  }
  return entries;
}

/** Live (non-zombie) processes descending from `root` (default: this process). */
export function descendants(root = process.pid): ProcEntry[] {
  const table = processTable();
  const found: ProcEntry[] = [];
  const parents = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of table) {
      if (parents.has(entry.ppid) && !parents.has(entry.pid)) {
        parents.add(entry.pid);
        found.push(entry);
        grew = true;
      }
    }
  }
  return found.filter((entry) => entry.state !== "Z");
}

/** Live (non-zombie) processes of terminal session `sid` (everything started in that PTY). */
export function sessionMembers(sid: number): ProcEntry[] {
  return processTable().filter((entry) => entry.sid === sid && entry.state !== "Z");
}

/** Open file descriptors of this process. */
export function openFds(): number {
  return readdirSync("/proc/self/fd").length;
}

/** Runs `call` and returns what it threw (synchronously or as a rejection); fails if it did not throw. */
export async function thrown(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error(`expected a throw or a rejection from ${call.toString()}`);
}

/**
 * Asserts `call` fails with an AgentTtyError `ERR_INVALID_ARGUMENT` whose
 * message names `mentions` (what was wrong, and what to pass instead).
 */
export async function expectInvalidArgument(call: () => unknown, ...mentions: Array<string | RegExp>): Promise<AgentTtyError> {
  const error = await thrown(call);
  expect(error, `${call.toString()} threw ${String(error)}`).toBeInstanceOf(AgentTtyError);
  const typed = error as AgentTtyError;
  expect(typed.code, typed.message).toBe("ERR_INVALID_ARGUMENT");
  for (const mention of mentions) {
    if (typeof mention === "string") expect(typed.message).toContain(mention);
    else expect(typed.message).toMatch(mention);
  }
  return typed;
}
