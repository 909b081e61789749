/**
 * Runs the built `k` / `km` / `agent-tty` as real processes against a
 * private daemon (AGENT_TTY_HOME in a temporary directory), and stops that
 * daemon afterwards, pass or fail.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const K = join(ROOT, "dist", "cli", "k.js");
export const KM = join(ROOT, "dist", "cli", "km.js");
export const AGENT_TTY = join(ROOT, "dist", "cli", "agent-tty.js");

export interface Ran {
  stdout: string;
  stderr: string;
  code: number;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** A private daemon home and ways to call the CLI against it. */
export class CliSandbox {
  readonly dir = mkdtempSync(join(tmpdir(), "agent-tty-cli-"));
  readonly home = join(this.dir, "d");
  readonly env: NodeJS.ProcessEnv;
  readonly #children = new Set<ChildProcess>();

  constructor(extraEnv: NodeJS.ProcessEnv = {}) {
    // HOME too: sessions run real bash, without the user's own rc files.
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: this.dir, AGENT_TTY_HOME: this.home, NO_COLOR: "1", ...extraEnv };
    delete env["K_SESSION"];
    this.env = env;
  }

  /** Runs a script with node and waits for it. */
  exec(script: string, args: readonly string[], options: RunOptions = {}): Promise<Ran> {
    return new Promise((done) => {
      execFile(
        process.execPath,
        [script, ...args],
        { cwd: options.cwd ?? this.dir, env: { ...this.env, ...options.env }, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 << 20 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
          done({ stdout, stderr, code });
        },
      );
    });
  }

  k(...args: string[]): Promise<Ran> {
    return this.exec(K, args);
  }

  km(...args: string[]): Promise<Ran> {
    return this.exec(KM, args);
  }

  /** `k run -j …` parsed. */
  async runJson(...args: string[]): Promise<Record<string, unknown>> {
    const ran = await this.k("run", "-j", ...args);
    return JSON.parse(ran.stdout) as Record<string, unknown>;
  }

  /** Starts a long-running CLI process (km, watch); it is killed in `cleanup`. */
  start(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): LiveProcess {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: this.dir,
      env: { ...this.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.#children.add(child);
    child.on("exit", () => this.#children.delete(child));
    return new LiveProcess(child);
  }

  /** The pid in the daemon's lock file, if any. */
  daemonPid(): number | null {
    try {
      const pid = Number.parseInt(readFileSync(join(this.home, "daemon.lock"), "utf8"), 10);
      return Number.isInteger(pid) ? pid : null;
    } catch {
      return null;
    }
  }

  /** Stops what this sandbox started: its CLI processes, its daemon (and so its sessions), its files. */
  async cleanup(): Promise<void> {
    for (const child of this.#children) child.kill("SIGKILL");
    const pid = this.daemonPid();
    if (existsSync(this.home)) await this.exec(AGENT_TTY, ["daemon", "stop"], { timeoutMs: 20_000 });
    if (pid !== null && alive(pid)) {
      process.kill(pid, "SIGTERM");
      await waitFor(() => !alive(pid), 5_000).catch(() => process.kill(pid, "SIGKILL"));
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A running CLI process whose stdout is collected. */
export class LiveProcess {
  stdout = "";
  stderr = "";
  code: number | null = null;
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.setEncoding("utf8").on("data", (d: string) => (this.stdout += d));
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.exited = new Promise((r) => child.on("exit", (code) => r((this.code = code))));
  }

  /** Complete stdout lines so far. */
  lines(): string[] {
    return this.stdout.split("\n").slice(0, -1);
  }

  /** Waits until stdout matches. */
  async waitFor(pattern: RegExp | string, timeoutMs = 10_000): Promise<void> {
    await waitFor(
      () => (typeof pattern === "string" ? this.stdout.includes(pattern) : pattern.test(this.stdout)),
      timeoutMs,
      () => `stdout so far: ${JSON.stringify(this.stdout)} stderr: ${JSON.stringify(this.stderr)}`,
    );
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` until it is true, or rejects at the deadline. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, describe?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${describe ? `; ${describe()}` : ""}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
