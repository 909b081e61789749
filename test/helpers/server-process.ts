import type { ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { waitFor } from "./wait-for.js";

/** How a private server the tests started is watched, awaited and stopped. */
export interface ServerProcessOptions {
  /** Names it in errors ("private MariaDB"). */
  readonly name: string;
  /** Its private directory, removed once it stopped. */
  readonly dir: string;
  /** Signals sent in turn to stop it, each with how long to wait for the exit before the next. */
  readonly stopSignals: ReadonlyArray<readonly [NodeJS.Signals, number]>;
  /** When it is ready: a line of its log, or a check of its own. */
  readonly ready: string | (() => boolean);
  readonly readyTimeoutMs: number;
}

/** A started server: `stop()` ends it (pass or fail, idempotent) and removes its directory. */
export interface ServerProcess {
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Watches a server child the tests started: keeps the tail of its output,
 * waits until it is ready and stops it by the given signals. If it exits or
 * is not ready in time, it is stopped and the error carries what it said.
 */
export async function superviseServer(server: ChildProcess, options: ServerProcessOptions): Promise<ServerProcess> {
  let log = "";
  const append = (chunk: Buffer): void => {
    log = (log + chunk.toString()).slice(-4000);
  };
  server.stdout?.on("data", append);
  server.stderr?.on("data", append);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    server.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  server.once("error", () => {
    exited = true;
  });
  const stop = async (): Promise<void> => {
    for (const [signal, waitMs] of options.stopSignals) {
      if (exited) break;
      server.kill(signal);
      await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, waitMs))]);
    }
    rmSync(options.dir, { recursive: true, force: true });
  };
  const { ready } = options;
  const isReady = typeof ready === "string" ? () => log.includes(ready) : ready;
  try {
    await waitFor(() => exited || isReady(), { timeoutMs: options.readyTimeoutMs, message: `${options.name} ready` });
    if (exited) throw new Error(`${options.name} exited`);
  } catch (error) {
    await stop();
    throw new Error(`${options.name} did not start: ${String(error)}; it said: ${log.trim()}`);
  }
  return { pid: server.pid as number, stop };
}

/**
 * Who a server the tests start runs as: database servers refuse to run as root, so as root it is `nobody`;
 * otherwise `undefined` (as ourselves).
 */
export function unprivilegedIdentity(program: string): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("nobody:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined) throw new Error(`running as root, but there is no \`nobody\` user to run ${program} as`);
  return { uid: Number(uid), gid: Number(gid) };
}
