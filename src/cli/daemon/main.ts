/**
 * The per-user session daemon: holds the sessions between `k` calls and
 * serves the protocol of ../shared/protocol.ts on a Unix socket in a directory only
 * its user can enter.
 *
 * Exactly one daemon runs per directory: it takes `daemon.lock` (created
 * with O_EXCL, holding its pid) before it touches the socket. A lock whose
 * pid is dead is stale: it is moved aside atomically (only one contender
 * wins the rename) and the socket file left by the dead daemon is replaced.
 */
import { chmodSync, closeSync, linkSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { checkHome, daemonAlive, daemonPaths, readLockPid, type DaemonPaths } from "../shared/paths.js";
import { packageVersion } from "../shared/version.js";
import { Backend } from "./backend.js";

/** With no session and no client for this long, the daemon exits. */
const DEFAULT_IDLE_MS = 15 * 60_000;

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} agent-tty daemon[${process.pid}]: ${message}\n`);
}

/** Takes the lock; returns the pid of the daemon that holds it instead, if any. */
export function acquireLock(lockPath: string): number | null {
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      return null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = readLockPid(lockPath);
    if (holder !== null && holder !== process.pid && daemonAlive(holder)) return holder;
    if (holder === null) {
      // Being written right now, or garbage: give its writer a moment.
      let age = Infinity;
      try {
        age = Date.now() - statSync(lockPath).mtimeMs;
      } catch {
        continue; // gone: try again
      }
      if (age < 1_000) {
        sleepSync(20);
        continue;
      }
    }
    const aside = `${lockPath}.stale.${process.pid}`;
    try {
      renameSync(lockPath, aside);
    } catch {
      continue; // someone else moved it: try again
    }
    const moved = readLockPid(aside);
    if (moved !== holder) {
      // We moved a fresh lock of a daemon that just won: put it back.
      try {
        linkSync(aside, lockPath);
      } catch {
        /* a third one took the place: it wins */
      }
      unlinkSync(aside);
      return moved ?? -1;
    }
    unlinkSync(aside);
  }
  throw new Error(`cannot take the daemon lock ${lockPath}`);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function releaseLock(lockPath: string): void {
  if (readLockPid(lockPath) === process.pid) {
    try {
      unlinkSync(lockPath);
    } catch {
      /* gone */
    }
  }
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolveListen();
    });
  });
}

/**
 * Runs the daemon in this process until it is stopped (`agent-tty daemon
 * stop`, SIGTERM/SIGINT/SIGHUP, or idle). Resolves the exit status: 0 also
 * when another daemon already serves this directory.
 */
export async function runDaemon(paths: DaemonPaths = daemonPaths()): Promise<number> {
  try {
    checkHome(paths, true);
  } catch (error) {
    log(`cannot use ${paths.home}: ${(error as Error).message}`);
    return 1;
  }
  let holder: number | null;
  try {
    holder = acquireLock(paths.lock);
  } catch (error) {
    log((error as Error).message);
    return 1;
  }
  if (holder !== null) {
    log(`another daemon (pid ${holder}) serves ${paths.home}; exiting`);
    return 0;
  }

  let stopping: Promise<void> | null = null;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((r) => {
    finish = r;
  });
  const idleMs = Number(process.env["AGENT_TTY_DAEMON_IDLE_MS"]) || DEFAULT_IDLE_MS;
  const backend = new Backend({
    version: packageVersion(),
    onShutdown: () => stop("stop requested"),
    firstRequestMs: Math.min(idleMs, 30_000),
  });
  const server = createServer((socket) => backend.accept(socket));

  const stop = (why: string): Promise<void> => {
    stopping ??= (async () => {
      log(`stopping (${why})`);
      clearInterval(idleTimer);
      server.close();
      try {
        await backend.closeAll();
      } catch (error) {
        log(`closing sessions failed: ${(error as Error).message}`);
      }
      try {
        unlinkSync(paths.socket);
      } catch {
        /* gone */
      }
      releaseLock(paths.lock);
      log("stopped");
      finish(0);
    })();
    return stopping;
  };

  const idleTimer = setInterval(
    () => {
      if (backend.idleMs >= idleMs) void stop(`idle for ${Math.round(idleMs / 1000)} s`);
    },
    Math.min(idleMs, 30_000),
  );
  idleTimer.unref();

  try {
    unlinkSync(paths.socket); // left by a dead daemon: we hold the lock, so it is not in use
  } catch {
    /* none */
  }
  try {
    await listen(server, paths.socket);
    chmodSync(paths.socket, 0o600);
  } catch (error) {
    log(`cannot listen on ${paths.socket}: ${(error as Error).message}`);
    releaseLock(paths.lock);
    return 1;
  }
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => void stop(signal));
  process.on("uncaughtException", (error) => log(`uncaught: ${error.stack ?? String(error)}`));
  process.on("unhandledRejection", (error) => log(`unhandled rejection: ${String((error as Error)?.stack ?? error)}`));
  log(`listening on ${paths.socket}`);
  return finished;
}
