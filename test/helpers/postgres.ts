import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { superviseServer, unprivilegedIdentity } from "./server-process.js";

/** A private PostgreSQL server on a Unix socket in its own temp dir. */
export interface PrivatePostgres {
  /** The socket directory (`psql -h`). */
  readonly socketDir: string;
  /** The port its socket is named after (`psql -p`). */
  readonly port: number;
  /** Its superuser (made by `initdb -U`; trust authentication). */
  readonly user: string;
  /** The server's pid (the postmaster). */
  readonly pid: number;
  /** `psql` arguments that reach it as its superuser, without the user's `.psqlrc` (`-X`), database `postgres`. */
  psqlArgs(...extra: string[]): string[];
  /** Stops the server (fast shutdown, then harder) and removes its directory. */
  stop(): Promise<void>;
}

/** Where Debian's `postgresql` package puts the server: `/usr/lib/postgresql/<version>/bin`, the newest. */
export function postgresBinDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter(
          (name) =>
            /^\d+(\.\d+)?$/.test(name) && existsSync(join(root, name, "bin", "postgres")) && existsSync(join(root, name, "bin", "initdb")),
        )
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) {
    throw new Error(
      "the PostgreSQL server is not installed: these tests need /usr/lib/postgresql/<version>/bin/{initdb,postgres} (.ci/run installs the postgresql package)",
    );
  }
  return join(root, newest, "bin");
}

/** The postmaster has written "ready" to its pid file (its 8th line). */
function isReady(dataDir: string): boolean {
  try {
    return readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[7]?.trim() === "ready";
  } catch {
    return false;
  }
}

/**
 * Starts a private PostgreSQL server: `initdb -A trust -U postgres` in a temp dir, the postmaster
 * listening on a Unix socket in that dir only (no TCP), as `nobody` when the tests run as root.
 * The caller stops it (afterAll). Throws when the server binaries are missing: a test that needs
 * them must fail, not pass silently.
 */
export async function startPostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const identity = unprivilegedIdentity("postgres");
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-tty-pg-")));
  const dataDir = join(dir, "data");
  const user = "postgres";
  const port = 5432;
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LC_ALL: "C", LANG: "C" };
  const as = identity === undefined ? {} : { uid: identity.uid, gid: identity.gid };
  let child: ChildProcess | undefined;
  try {
    mkdirSync(dataDir, { mode: 0o700 });
    if (identity !== undefined) {
      chownSync(dir, identity.uid, identity.gid);
      chownSync(dataDir, identity.uid, identity.gid);
    }
    execFileSync(join(bin, "initdb"), ["-D", dataDir, "-U", user, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], {
      ...as,
      env,
      cwd: dir,
      stdio: "pipe",
    });
    const args = [
      "-D",
      dataDir,
      "-k",
      dir,
      "-p",
      String(port),
      "-c",
      "listen_addresses=",
      "-c",
      "fsync=off",
      "-c",
      "logging_collector=off",
    ];
    child = spawn(join(bin, "postgres"), args, { ...as, env, cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`private PostgreSQL did not start: ${String(error)}${stderr ? `; it said: ${stderr}` : ""}`);
  }
  const { pid, stop } = await superviseServer(child, {
    name: "private PostgreSQL",
    dir,
    // SIGINT: fast shutdown (backends are ended); SIGQUIT then SIGKILL if it lingers.
    stopSignals: [
      ["SIGINT", 5_000],
      ["SIGQUIT", 2_000],
      ["SIGKILL", 2_000],
    ],
    ready: () => isReady(dataDir),
    readyTimeoutMs: 20_000,
  });
  return {
    socketDir: dir,
    port,
    user,
    pid,
    psqlArgs: (...extra) => ["-X", "-h", dir, "-p", String(port), "-U", user, ...extra, "postgres"],
    stop,
  };
}
