import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { superviseServer } from "./server-process.js";

/** A private redis-server on a loopback port, persisting nothing. */
export interface PrivateRedis {
  /** Its port on 127.0.0.1 (`redis-cli -p`). */
  readonly port: number;
  /** Its Unix socket, in its temp dir (`redis-cli -s`). */
  readonly socket: string;
  /** The server's pid. */
  readonly pid: number;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its directory. */
  stop(): Promise<void>;
}

/** Where Debian's `redis-server` package puts the server. */
function serverPath(): string {
  const found = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((path) => existsSync(path));
  if (found === undefined)
    throw new Error("redis-server is not installed: these tests need it (.ci/run installs the redis-server package)");
  return found;
}

/** A port nobody listens on now (another process may take it before the server does: start retries). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** One attempt on one port: the server, or why it did not start. */
async function startOn(path: string, port: number): Promise<PrivateRedis> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-tty-redis-")));
  const socket = join(dir, "sock");
  // No snapshot, no append-only file, no config file; the log on stdout.
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--unixsocket",
    socket,
    "--unixsocketperm",
    "700",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    "--daemonize",
    "no",
    "--logfile",
    "",
  ];
  let server: ChildProcess;
  try {
    server = spawn(path, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const { pid, stop } = await superviseServer(server, {
    name: `private redis-server on port ${port}`,
    dir,
    stopSignals: [
      ["SIGTERM", 5_000],
      ["SIGKILL", 2_000],
    ],
    ready: "Ready to accept connections",
    readyTimeoutMs: 15_000,
  });
  return { port, socket, pid, stop };
}

/**
 * Starts a private redis-server on a free loopback port and a Unix socket in its temp dir
 * (`--save '' --appendonly no`). The caller stops it (afterAll). Throws when redis-server is not installed: a test
 * that needs it must fail, not pass silently.
 */
export async function startRedis(): Promise<PrivateRedis> {
  const path = serverPath();
  let lastError: unknown;
  // The free port may be taken between the probe and the server's bind: try another.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOn(path, await freePort());
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}
