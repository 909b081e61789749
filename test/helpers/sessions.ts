import { readFileSync } from "node:fs";
import { afterEach } from "vitest";
import { Session, SessionManager, type Cell, type SessionOptions } from "../../src/index.js";

const open = new Set<Session>();
const managers = new Set<SessionManager>();

/** Spawns a session that is closed after the test, pass or fail. */
export async function spawnSession(options: SessionOptions = {}): Promise<Session> {
  const session = await Session.spawn(options);
  open.add(session);
  return session;
}

/** A bash without the user's rc files, closed after the test. */
export function spawnBash(options: SessionOptions = {}): Promise<Session> {
  return spawnSession({ command: "bash", args: ["--norc", "--noprofile"], ...options });
}

/** Registers a session made elsewhere so it is closed after the test. */
export function track<T extends Session>(session: T): T {
  open.add(session);
  return session;
}

/** A manager whose sessions are all closed after the test. */
export function trackManager(manager: SessionManager): SessionManager {
  managers.add(manager);
  return manager;
}

afterEach(async () => {
  const sessions = [...open];
  open.clear();
  const all = [...managers];
  managers.clear();
  await Promise.all([...sessions.map((session) => session.close()), ...all.map((manager) => manager.closeAll())]);
});

/** True when `pid` is still a live process (not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Collects everything the terminal produces from now on (the raw transcript). */
export function recordRaw(sh: Session): { text: () => string } {
  let text = "";
  sh.on("data", (chunk) => {
    text += chunk;
  });
  return { text: () => text };
}

/** Resolves once the cell's live output contains `text`. */
export async function seen(cell: Cell, text: string): Promise<void> {
  let sofar = "";
  for await (const chunk of cell) {
    sofar += chunk;
    if (sofar.includes(text)) return;
  }
  throw new Error(`cell ended without printing ${JSON.stringify(text)}; got ${JSON.stringify(sofar)}`);
}
