import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "agent-tty-";
/** `agent-tty-<pid of the process that made it>-<random>`, as {@link makePrivateTempDir} names them. */
const OURS = /^agent-tty-(\d+)-[A-Za-z0-9]{6}$/;
/** A directory younger than this is never swept: it may belong to a process in another pid namespace. */
const LEFTOVER_MIN_AGE_MS = 10 * 60_000;

let swept = false;

/**
 * Makes a private (0700) directory for a session's start-up files, named
 * after this process. The first call of a process also removes what a
 * killed process left (see {@link sweepLeftoverTempDirs}).
 */
export function makePrivateTempDir(): string {
  if (!swept) {
    swept = true;
    sweepLeftoverTempDirs();
  }
  return mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
}

/**
 * Removes this user's session directories whose process is gone (killed
 * while a shell was starting, before it could clean up; they hold the
 * session's frame secret) and that are older than ten minutes. Never throws.
 */
export function sweepLeftoverTempDirs(dir = tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const pid = Number(OURS.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || processExists(pid)) continue;
    const path = join(dir, name);
    try {
      const stat = lstatSync(path);
      if (!stat.isDirectory() || stat.uid !== uid || Date.now() - stat.mtimeMs < LEFTOVER_MIN_AGE_MS) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
