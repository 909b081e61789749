/**
 * Where the daemon lives: its private directory (socket, lock, log), the
 * checks that nobody else can use it, and whether the pid in its lock is a
 * live daemon. Shared by the `k` client (which starts the daemon) and the
 * daemon (which takes the lock). Node built-ins only: the client imports it.
 */
import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Where the daemon keeps its socket, lock and log. */
export interface DaemonPaths {
  home: string;
  socket: string;
  lock: string;
  log: string;
}

/**
 * The daemon's directory: `$AGENT_TTY_HOME`, else
 * `${XDG_RUNTIME_DIR or the temp dir}/agent-tty-<uid>`.
 */
export function daemonPaths(env: NodeJS.ProcessEnv = process.env): DaemonPaths {
  let home: string;
  if (env["AGENT_TTY_HOME"]) home = resolve(env["AGENT_TTY_HOME"]);
  else {
    const base = env["XDG_RUNTIME_DIR"] || tmpdir();
    const uid = typeof process.getuid === "function" ? process.getuid() : "user";
    home = join(base, `agent-tty-${uid}`);
  }
  return {
    home,
    socket: join(home, "daemon.sock"),
    lock: join(home, "daemon.lock"),
    log: join(home, "daemon.log"),
  };
}

/** Unix socket paths longer than this do not fit `sockaddr_un` on Linux/macOS. */
const MAX_SOCKET_PATH = 103;

/**
 * Checks that the daemon's directory belongs to this user and nobody else
 * can enter it, that no other user could ever have written to it (one that
 * others can write is refused, not repaired), and that nothing in it is a
 * symbolic link or another user's; with `create`, makes it (0700) first.
 * Throws an `Error` whose message is a complete sentence for the user.
 */
export function checkHome(paths: DaemonPaths, create: boolean): void {
  if (Buffer.byteLength(paths.socket) > MAX_SOCKET_PATH) {
    throw new Error(`socket path ${paths.socket} is too long for a Unix socket; set AGENT_TTY_HOME to a shorter directory`);
  }
  if (create) mkdirSync(paths.home, { recursive: true, mode: 0o700 });
  const st = lstatSync(paths.home);
  if (!st.isDirectory()) throw new Error(`${paths.home} is not a directory; remove it or set AGENT_TTY_HOME`);
  const uid = typeof process.getuid === "function" ? process.getuid() : st.uid;
  if (st.uid !== uid) {
    throw new Error(`${paths.home} belongs to uid ${st.uid}, not to you (uid ${uid}); set AGENT_TTY_HOME`);
  }
  if ((st.mode & 0o022) !== 0) {
    // Another user could have planted a socket (our env would go to their "daemon") or a log link.
    throw new Error(
      `${paths.home} is writable by other users, so nothing in it can be trusted; remove it (rm -rf ${paths.home}) or set AGENT_TTY_HOME to a private directory`,
    );
  }
  if ((st.mode & 0o077) !== 0) {
    if (!create) throw new Error(`${paths.home} can be entered by other users; run any k command to repair it`);
    chmodSync(paths.home, 0o700);
  }
  for (const name of readdirSync(paths.home)) {
    const path = join(paths.home, name);
    let entry: Stats;
    try {
      entry = lstatSync(path);
    } catch {
      continue; // gone
    }
    if (entry.isSymbolicLink()) {
      throw new Error(`${path} is a symbolic link; agent-tty follows no links in its directory: remove it (or the whole directory)`);
    }
    if (entry.uid !== uid)
      throw new Error(`${path} belongs to uid ${entry.uid}, not to you (uid ${uid}): remove it (or the whole directory)`);
  }
}

/** Reads the pid written in the daemon's lock file, or null. */
export function readLockPid(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** True when a process with this pid exists (it may belong to another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** True when `pid` is alive and looks like an agent-tty daemon (where /proc can tell): a reused pid is not. */
export function daemonAlive(pid: number): boolean {
  if (!pidAlive(pid)) return false;
  try {
    // Our daemon runs as `node …/cli/daemon.js`; a mere "daemon" in the command line (dbus-daemon) is another program.
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .some((arg) => /(^|\/)daemon\.[cm]?[jt]s$/.test(arg));
  } catch {
    return true;
  }
}

/** Opens (creating, 0600) the daemon's log for appending; returns the fd. */
export function openLog(paths: DaemonPaths): number {
  return openSync(paths.log, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
}

/** Closes an fd, ignoring errors. */
export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
}
