import { settleWithin } from "../internal/settle-within.js";
import { isRunning, listSessionProcesses } from "./proc-state.js";
import type { PtyProcess } from "./spawn.js";

/** How often SIGHUP is sent again during the grace period. */
const HUP_RESEND_MS = 100;
/** How long to wait for the program to go after SIGKILL before giving up on it. */
const KILL_WAIT_MS = 2_000;

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Whether `promise` settles within `ms`. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return settleWithin(
    promise.then(() => true),
    ms,
    false,
  );
}

/**
 * Stops (SIGSTOP) every process of the terminal's session `sid`, so that
 * none forks while the session is taken down; processes that appear
 * meanwhile are caught on a further pass.
 */
export function freezeSession(sid: number): void {
  const stopped = new Set<number>();
  for (let pass = 0; pass < 5; pass++) {
    const fresh = listSessionProcesses(sid).filter((pid) => !stopped.has(pid));
    if (fresh.length === 0) return;
    for (const pid of fresh) {
      signal(pid, "SIGSTOP");
      stopped.add(pid);
    }
  }
}

/**
 * Ends everything running in the PTY: SIGHUP to the program's process group
 * (bash passes it on to its jobs), then, after `graceMs`, SIGKILL to every
 * process of the terminal's session, background jobs and grandchildren included.
 */
export async function killSession(pty: PtyProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  const sid = pty.pid;
  pty.releaseSlave();
  signal(-sid, "SIGHUP");
  pty.kill("SIGHUP");
  // A shell between two reads of its terminal can take SIGHUP in its handler and go on: say it again.
  const resend = setInterval(() => {
    signal(-sid, "SIGHUP");
    pty.kill("SIGHUP");
  }, HUP_RESEND_MS);
  const gone = graceMs > 0 && (await within(exited, graceMs));
  clearInterval(resend);
  const leftovers = listSessionProcesses(sid);
  if (gone && leftovers.length === 0) return;
  signal(-sid, "SIGKILL");
  for (const pid of leftovers) signal(pid, "SIGKILL");
  if (!gone) await within(exited, KILL_WAIT_MS);
  await untilGone(sid, leftovers);
}

/**
 * Ends what is left of the terminal's session `sid` after its leader is gone
 * (background jobs of a shell that exited or was killed): SIGKILL to every
 * member, resolving once they are gone. The session id outlives its leader, so
 * the jobs are found by it.
 */
export async function killSessionLeftovers(sid: number): Promise<void> {
  const leftovers = listSessionProcesses(sid);
  if (leftovers.length === 0) return;
  for (const pid of leftovers) signal(pid, "SIGKILL");
  await untilGone(sid, leftovers);
}

/** Resolves once none of `killed` runs in session `sid` any more (SIGKILL is not instant), or after a bound. */
async function untilGone(sid: number, killed: readonly number[]): Promise<void> {
  const deadline = Date.now() + KILL_WAIT_MS;
  while (Date.now() < deadline && listSessionProcesses(sid).some((pid) => killed.includes(pid) && isRunning(pid))) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
