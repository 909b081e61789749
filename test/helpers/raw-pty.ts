import * as nodePty from "node-pty";
import { afterEach } from "vitest";
import { listSessionProcesses } from "../../src/pty/proc-state.js";

/** A program in a PTY started by node-pty directly, for tests below the Session layer. */
export interface RawPty {
  readonly pid: number;
  /** Everything the program printed so far. */
  output(): string;
  write(data: string): void;
  /** Calls `listener` with each chunk of output from now on. */
  onData(listener: (data: string) => void): void;
  /** Resolves with the exit code once the program exited. */
  readonly exited: Promise<number>;
}

const started = new Set<nodePty.IPty>();

/**
 * Starts `command` in a PTY (UTF-8, `TERM=xterm-256color`). Every PTY is
 * killed after the test, pass or fail, with every process of its session.
 */
export function startPty(
  command: string,
  args: readonly string[],
  options: { cols?: number; rows?: number; env?: Record<string, string>; cwd?: string } = {},
): RawPty {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  Object.assign(env, { TERM: "xterm-256color", LANG: "C.UTF-8", LC_ALL: "C.UTF-8" }, options.env);
  const pty = nodePty.spawn(command, [...args], {
    name: "xterm-256color",
    cols: options.cols ?? 80,
    rows: options.rows ?? 24,
    cwd: options.cwd ?? process.cwd(),
    env,
  });
  started.add(pty);
  let output = "";
  pty.onData((data) => {
    output += data;
  });
  const exited = new Promise<number>((resolve) => {
    pty.onExit(({ exitCode }) => {
      started.delete(pty);
      resolve(exitCode);
    });
  });
  return {
    pid: pty.pid,
    output: () => output,
    write: (data) => pty.write(data),
    onData: (listener) => {
      pty.onData(listener);
    },
    exited,
  };
}

/** Kills every process of the PTY's session, then the PTY itself. */
export function killPty(pty: nodePty.IPty): void {
  for (const pid of [...listSessionProcesses(pty.pid), pty.pid]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  try {
    pty.kill("SIGKILL");
  } catch {
    // Already gone.
  }
}

afterEach(async () => {
  const ptys = [...started];
  started.clear();
  for (const pty of ptys) killPty(pty);
  await Promise.all(
    ptys.map(
      (pty) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 2000);
          pty.onExit(() => {
            clearTimeout(timer);
            resolve();
          });
        }),
    ),
  );
});
