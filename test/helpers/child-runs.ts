import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { isAlive } from "./sessions.js";

/** The repository's root. */
export const root = fileURLToPath(new URL("../..", import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory removed after the test; under `parent` when given. */
export function scratch(prefix: string, parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, prefix));
  dirs.push(dir);
  return dir;
}

/** What a child test run left. */
export interface ChildRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The pids the sample tests noted (sessions and a background job). */
  readonly pids: number[];
}

/** Runs `node args…` in `cwd` with the sample variables set; resolves when it exits, whatever its code. */
export function runChild(cwd: string, args: string[], env: Record<string, string>, timeoutMs = 180_000): Promise<ChildRun> {
  const pidFile = join(scratch("agent-tty-pids-"), "pids.txt");
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...env,
      AGENT_TTY_SAMPLE_PIDS: pidFile,
      CI: "1",
      FORCE_COLOR: "0",
      NO_COLOR: "1",
    };
    // The parent Vitest's own variables would make the child think it runs inside it.
    for (const key of Object.keys(childEnv)) if (key.startsWith("VITEST") || key === "TEST" || key === "NODE_OPTIONS") delete childEnv[key];
    execFile(process.execPath, args, { cwd, env: childEnv, timeout: timeoutMs, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== "number") {
        reject(new Error(`${args.join(" ")} did not finish: ${error.message}\n${stdout}\n${stderr}`));
        return;
      }
      let pids: number[] = [];
      try {
        pids = readFileSync(pidFile, "utf8")
          .split("\n")
          .filter((line) => line !== "")
          .map(Number);
      } catch {
        pids = [];
      }
      resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr, pids });
    });
  });
}

/** Pids among `pids` still alive. */
export function alive(pids: readonly number[]): number[] {
  return pids.filter((pid) => isAlive(pid));
}

/** A Jest or Vitest JSON report, the fields these tests read. */
export interface JsonReport {
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly testResults: readonly {
    readonly assertionResults: readonly { readonly title: string; readonly status: string; readonly failureMessages: readonly string[] }[];
  }[];
}

/** The failure messages of the test titled `title`. */
export function failureOf(report: JsonReport, title: string): string {
  const found = report.testResults.flatMap((file) => file.assertionResults).find((result) => result.title === title);
  if (found === undefined) throw new Error(`no test titled ${JSON.stringify(title)} in the report`);
  return found.failureMessages.join("\n");
}
