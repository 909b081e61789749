import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomText } from "./random.js";

const PREFIX = "agent-tty-";
/** `agent-tty-<pid of the process that made it>-<random>`, as {@link privateProcessDir} names them. */
const OURS = /^agent-tty-(\d+)-[A-Za-z0-9]{6}$/;
/** A directory younger than this is never swept: it may belong to a process in another pid namespace. */
const LEFTOVER_MIN_AGE_MS = 10 * 60_000;
/** How long the process directory stays once no session has files in it: a next spawn soon reuses it. */
const IDLE_DIR_MS = 1_000;

let processDir: string | undefined;
/** Sessions whose files are in the process directory. */
let users = 0;
let idleTimer: NodeJS.Timeout | undefined;
let exitHook = false;
/** Where the process directory went: swept of a killed process's leftovers once per process. */
const swept = new Set<string>();
/** The files of {@link PrivateFiles.shared}, by name: in the process directory they were written to. */
const sharedFiles = new Map<string, { readonly dir: string; readonly path: string; readonly text: string }>();

/**
 * Where private directories go: an explicit `TMPDIR` (`TMP`, `TEMP`) is the
 * user's choice; otherwise, on Linux, `/dev/shm` (memory: the secret never
 * reaches a disk, and a file there costs a tenth of what it costs a
 * journaling file system), then the system's temporary directory.
 */
function baseDirs(): string[] {
  const env = process.env;
  const explicit = [env["TMPDIR"], env["TMP"], env["TEMP"]].some((value) => value !== undefined && value !== "");
  return process.platform === "linux" && !explicit ? ["/dev/shm", tmpdir()] : [tmpdir()];
}

/**
 * This process's private (0700) directory for sessions' start-up files,
 * named after the process and made on first use: one directory while
 * sessions start (making and removing a directory costs a journaling file
 * system a millisecond or two, a file a tenth of that), removed a second
 * after the last session's files were, and at exit. Making it starts
 * removing, in the background, what a killed process left there (see
 * {@link sweepLeftoverTempDirs}).
 */
export function privateProcessDir(): string {
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = undefined;
  if (processDir !== undefined) return processDir;
  let made: string | undefined;
  let failure: unknown;
  for (const base of baseDirs()) {
    try {
      made = mkdtempSync(join(base, `${PREFIX}${process.pid}-`));
    } catch (error) {
      failure ??= error;
      continue;
    }
    if (!swept.has(base)) {
      swept.add(base);
      void sweepInBackground(base);
    }
    break;
  }
  if (made === undefined) throw failure;
  processDir = made;
  if (!exitHook) {
    exitHook = true;
    process.once("exit", removeProcessDir);
  }
  return made;
}

/** Removes the process directory if it is empty (a session still starting keeps it; never throws). */
function removeProcessDir(): void {
  idleTimer = undefined;
  const dir = processDir;
  if (dir === undefined || users > 0) return;
  processDir = undefined;
  for (const [name, file] of sharedFiles) {
    if (file.dir !== dir) continue;
    sharedFiles.delete(name);
    unlinkQuietly(file.path);
  }
  try {
    rmdirSync(dir);
  } catch {
    // Not empty or gone: a later sweep takes it.
  }
}

/**
 * One session's private start-up files (mode 0600, created new, never
 * overwritten) in this process's private directory, removed together.
 */
export class PrivateFiles {
  readonly #prefix: string;
  readonly #files: string[] = [];
  #dir: string | undefined;
  #counted = false;

  constructor() {
    this.#prefix = `s${randomText(6, "hex")}`;
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

  /**
   * A private file holding `text` that every session of this process reads alike (no secret in
   * it): written once into the process directory and reused by the sessions that start while the
   * directory lasts (one file less to write per spawn), removed with the directory. It is looked
   * for before it is reused: one written again if something (a tmp cleaner) removed it. A name
   * always comes with the same `text`.
   */
  shared(name: string, text: string): string {
    return this.#retry((base) => {
      const known = sharedFiles.get(name);
      if (known !== undefined && known.dir === base && known.text === text && existsSync(known.path)) return known.path;
      const path = join(base, `shared-${name}`);
      if (known?.dir === base) unlinkQuietly(path);
      writeFileSync(path, text, { mode: 0o600, flag: "wx" });
      sharedFiles.set(name, { dir: base, path, text });
      return path;
    });
  }

  /** Removes every file written (idempotent; never throws). */
  remove(): void {
    // unlink, not rmSync: rmSync stats the path first (fs.Stats and four Dates per file, ~3 kB a spawn).
    for (const file of this.#files.splice(0)) unlinkQuietly(file);
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
    if (!this.#counted) return;
    this.#counted = false;
    if (--users === 0) {
      idleTimer = setTimeout(removeProcessDir, IDLE_DIR_MS);
      idleTimer.unref();
    }
  }

  /** Runs `make` in the process directory, made again once if something (a tmp cleaner) removed it. */
  #retry<T>(make: (base: string) => T): T {
    if (!this.#counted) {
      this.#counted = true;
      users++;
    }
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
  for (const name of names) {
    if (!isLeftoverName(name)) continue;
    const path = join(dir, name);
    try {
      if (isLeftover(lstatSync(path))) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

/** Entries of a directory the background sweep looks at per turn of the event loop. */
const SWEEP_BATCH = 32;

/**
 * {@link sweepLeftoverTempDirs} off the spawn's path: a directory of hundreds of entries takes
 * milliseconds to read. The entries are looked at a batch per turn of the event loop, each with two
 * small synchronous calls (cheaper than a promise each: the sweep runs while the first cells do).
 */
async function sweepInBackground(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return; // Unreadable: nothing to sweep.
  }
  for (let start = 0; start < names.length; start += SWEEP_BATCH) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (let index = start; index < Math.min(names.length, start + SWEEP_BATCH); index++) {
      const name = names[index] as string;
      if (!isLeftoverName(name)) continue;
      const path = join(dir, name);
      try {
        if (isLeftover(lstatSync(path))) await rm(path, { recursive: true, force: true });
      } catch {
        // Gone already, or not ours to remove.
      }
    }
  }
}

/** Whether `/proc/<pid>` tells whether a process runs (Linux, /proc mounted for this namespace). */
let procShowsProcesses: boolean | undefined;

/** Named after a process (not this one) that is gone. */
function isLeftoverName(name: string): boolean {
  const pid = Number(OURS.exec(name)?.[1]);
  return Number.isInteger(pid) && pid !== process.pid && !processExists(pid);
}

function isLeftover(stat: { isDirectory(): boolean; uid: number; mtimeMs: number }): boolean {
  return stat.isDirectory() && stat.uid === process.getuid?.() && Date.now() - stat.mtimeMs >= LEFTOVER_MIN_AGE_MS;
}

function processExists(pid: number): boolean {
  // Where /proc shows this namespace's processes, a look at it costs a fraction of a failed kill()
  // (whose error object captures a stack): most names in the directory are other processes'.
  procShowsProcesses ??= process.platform === "linux" && existsSync(`/proc/${process.pid}`);
  if (procShowsProcesses) return existsSync(`/proc/${pid}`);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes a file, ignoring every error (gone already, or not ours to remove any more). */
function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // as rmSync with force: nothing to report
  }
}
