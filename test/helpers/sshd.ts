import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { waitFor } from "./wait-for.js";

/** A private sshd on a loopback port, with its own keys and configuration. */
export interface PrivateSshd {
  readonly port: number;
  /** The directory holding its configuration, keys and known_hosts. */
  readonly dir: string;
  /** The user it lets in (the one running the tests). */
  readonly user: string;
  /** `ssh` arguments that reach it (key-only, private known_hosts, no user ssh config), before the remote command. */
  sshArgs(...extra: string[]): string[];
  /** The same options without the destination. */
  readonly options: readonly string[];
  /** `user@127.0.0.1`. */
  readonly destination: string;
  /** Pids of the sshd children serving connections (not the listener). */
  connectionPids(): number[];
  /** Stops the listener and every connection it serves; removes its directory. */
  stop(): Promise<void>;
}

/** Where sshd is installed (Debian: /usr/sbin/sshd). `.ci/run` installs openssh-server. */
function sshdPath(): string {
  for (const candidate of ["/usr/sbin/sshd", "/usr/local/sbin/sshd"]) if (existsSync(candidate)) return candidate;
  throw new Error("sshd is not installed: these tests need openssh-server (.ci/run installs it with apt-get)");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString("latin1").startsWith("SSH-"));
    });
    socket.once("error", () => resolve(false));
  });
}

/** Children of `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Starts a private sshd on 127.0.0.1 (a free port): generated host key, key-only auth (a generated
 * client key), `UsePAM no`, its own configuration in a temp dir. The caller stops it (afterAll).
 * Throws when sshd is missing: a test that needs it must fail, not pass silently.
 */
export async function startSshd(): Promise<PrivateSshd> {
  const sshd = sshdPath();
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-tty-sshd-")));
  const user = userInfo().username;
  // sshd refuses to start without its privilege separation directory (made by the init script normally).
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")]);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")), { mode: 0o600 });
  const port = await freePort();
  const config = [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${join(dir, "host_key")}`,
    `PidFile ${join(dir, "sshd.pid")}`,
    `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
    "PubkeyAuthentication yes",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "UsePAM no",
    "PermitRootLogin prohibit-password",
    "StrictModes no",
    "PrintMotd no",
    "PrintLastLog no",
    "UseDNS no",
    "AcceptEnv LANG LC_*",
    "LogLevel ERROR",
    "",
  ].join("\n");
  writeFileSync(join(dir, "sshd_config"), config, { mode: 0o600 });
  writeFileSync(join(dir, "ssh_config"), "", { mode: 0o600 });
  const child: ChildProcess = spawn(sshd, ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let exitedEarly = false;
  void exited.then(() => {
    exitedEarly = true;
  });
  try {
    await waitFor(async () => !exitedEarly && (await accepts(port)), { timeoutMs: 10_000, message: "sshd listening" });
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`private sshd did not start: ${String(error)}; sshd said: ${stderr.trim()}`);
  }
  const listener = child.pid as number;
  const options = [
    "-F",
    join(dir, "ssh_config"),
    "-i",
    join(dir, "client_key"),
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    `UserKnownHostsFile=${join(dir, "known_hosts")}`,
    "-o",
    "LogLevel=ERROR",
    "-p",
    String(port),
  ];
  const destination = `${user}@127.0.0.1`;
  return {
    port,
    dir,
    user,
    options,
    destination,
    sshArgs: (...extra) => [...options, ...extra, destination],
    connectionPids: () => childrenOf(listener),
    stop: async () => {
      // The connections' sshd processes are children of the listener: end them first.
      for (const pid of childrenOf(listener)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
      if (!exitedEarly) child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
      if (!exitedEarly) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
