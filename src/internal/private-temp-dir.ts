import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "agent-tty-";
/** `agent-tty-<pid of the process that made it>-<random>`, as {@link privateProcessDir} names them. */
const OURS = /^agent-tty-(\d+)-[A-Za-z0-9]{6}$/;
/** A directory younger than this is never swept: it may belong to a process in another pid namespace. */
const LEFTOVER_MIN_AGE_MS = 10 * 60_000;

let processDir: string | undefined;

/**
 * This process's private (0700) directory for sessions' start-up files,
 * named after the process and made on first use: one directory for the
 * process's life rather than one per session (making and removing a
 * directory costs a journaling file system a millisecond or two, a file a
 * tenth of that). The first call also removes what a killed process left
 * (see {@link sweepLeftoverTempDirs}); the directory itself is removed at
 * exit when empty.
 */
export function privateProcessDir(): string {
  if (processDir !== undefined) return processDir;
  sweepLeftoverTempDirs();
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  processDir = dir;
  process.once("exit", () => {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty (a session still starting) or gone: the next process's sweep takes it.
    }
  });
  return dir;
}

/**
 * One session's private start-up files (mode 0600, created new, never
 * overwritten) in this process's private directory, removed together.
 */
export class PrivateFiles {
  readonly #prefix: string;
  readonly #files: string[] = [];
  #dir: string | undefined;

  constructor() {
    this.#prefix = `s${randomBytes(6).toString("hex")}`;
  }

  /**
   * A directory of the session's own (0700), for a program that reads fixed
   * file names from one (zsh's `ZDOTDIR`); {@link write} puts the files there
   * from then on.
   */
  dir(): string {
    this.#dir ??= this.#retry((base) => {
      const dir = join(base, this.#prefix);
      mkdirSync(dir, { mode: 0o700 });
      return dir;
    });
    return this.#dir;
  }

  /** Writes a new private file holding `text` and returns its path. */
  write(name: string, text: string): string {
    const inDir = this.#dir;
    const path =
      inDir === undefined
        ? this.#retry((base) => {
            const file = join(base, `${this.#prefix}-${name}`);
            writeFileSync(file, text, { mode: 0o600, flag: "wx" });
            return file;
          })
        : join(inDir, name);
    if (inDir !== undefined) writeFileSync(path, text, { mode: 0o600, flag: "wx" });
    this.#files.push(path);
    return path;
  }

  /** Removes every file written (idempotent; never throws). */
  remove(): void {
    for (const file of this.#files.splice(0)) rmSync(file, { force: true });
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }

  /** Runs `make` in the process directory, made again once if something (a tmp cleaner) removed it. */
  #retry<T>(make: (base: string) => T): T {
    try {
      return make(privateProcessDir());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      processDir = undefined;
      return make(privateProcessDir());
    }
  }
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
