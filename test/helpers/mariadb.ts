import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { superviseServer, unprivilegedIdentity } from "./server-process.js";

/** A private MariaDB server on a Unix socket in its own temp dir (no TCP). */
export interface PrivateMariadb {
  /** The server's socket (`mariadb -S`). */
  readonly socket: string;
  /** The server's pid. */
  readonly pid: number;
  /**
   * Arguments of the `mariadb` / `mysql` client that reach it as `root` (no password), reading no
   * option file (`--no-defaults`, which must come first).
   */
  clientArgs(...extra: string[]): string[];
  /** Stops the server (normal shutdown, then SIGKILL) and removes its directory. */
  stop(): Promise<void>;
}

/** Where Debian's `mariadb-server` package puts the server and its installer. */
function serverPaths(): { server: string; install: string } {
  const server = ["/usr/sbin/mariadbd", "/usr/sbin/mysqld"].find((path) => existsSync(path));
  const install = ["/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"].find((path) => existsSync(path));
  if (server === undefined || install === undefined) {
    throw new Error(
      "the MariaDB server is not installed: these tests need mariadbd and mariadb-install-db (.ci/run installs the mariadb-server package)",
    );
  }
  return { server, install };
}

/**
 * Starts a private MariaDB server: `mariadb-install-db` into a temp dir (root@localhost without a
 * password, so the client can connect as any OS user), then `mariadbd` on a Unix socket in that
 * dir only (`--skip-networking`), reading no option file, as `nobody` when the tests run as root.
 * The caller stops it (afterAll). Throws when the server is not installed: a test that needs it
 * must fail, not pass silently.
 */
export async function startMariadb(): Promise<PrivateMariadb> {
  const paths = serverPaths();
  const identity = unprivilegedIdentity("mariadbd");
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-tty-mariadb-")));
  const dataDir = join(dir, "data");
  const socket = join(dir, "sock");
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LC_ALL: "C", LANG: "C", HOME: dir };
  const as = identity === undefined ? {} : { uid: identity.uid, gid: identity.gid };
  // Small logs and buffers: a test server holds a few rows.
  const tuning = ["--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M", "--skip-log-bin"];
  let child: ChildProcess | undefined;
  try {
    mkdirSync(dataDir, { mode: 0o700 });
    if (identity !== undefined) {
      chownSync(dir, identity.uid, identity.gid);
      chownSync(dataDir, identity.uid, identity.gid);
    }
    execFileSync(
      paths.install,
      ["--no-defaults", `--datadir=${dataDir}`, "--auth-root-authentication-method=normal", "--skip-test-db", ...tuning],
      {
        ...as,
        env,
        cwd: dir,
        stdio: "pipe",
      },
    );
    const args = [
      "--no-defaults",
      `--datadir=${dataDir}`,
      `--socket=${socket}`,
      "--skip-networking",
      `--pid-file=${join(dir, "pid")}`,
      ...tuning,
    ];
    child = spawn(paths.server, args, { ...as, env, cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`private MariaDB did not start: ${String(error)}${stderr ? `; it said: ${stderr.slice(-2000)}` : ""}`);
  }
  const { pid, stop } = await superviseServer(child, {
    name: "private MariaDB",
    dir,
    // SIGTERM: a normal shutdown (connections are closed); SIGKILL if it lingers.
    stopSignals: [
      ["SIGTERM", 15_000],
      ["SIGKILL", 2_000],
    ],
    ready: "ready for connections",
    readyTimeoutMs: 45_000,
  });
  return {
    socket,
    pid,
    clientArgs: (...extra) => ["--no-defaults", `--socket=${socket}`, "--user=root", ...extra],
    stop,
  };
}
