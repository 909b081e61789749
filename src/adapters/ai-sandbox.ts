import { mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import type { Experimental_SandboxSession as SandboxSession } from "ai";
import type { Cell, CellResult, Session } from "../index.js";

/** Options of {@link terminalSandbox}. */
export interface TerminalSandboxOptions {
  /**
   * The directory relative paths resolve against (files and `workingDirectory`).
   * @default process.cwd()
   */
  readonly baseDirectory?: string;
  /** Added to the sandbox's `description` (what the agent is told about it). */
  readonly description?: string;
}

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
const encoder = new TextEncoder();

function exitCodeOf(result: CellResult): number {
  if (result.exitCode !== null) return result.exitCode;
  if (result.status === "done") return 0;
  return result.status === "timeout" ? 124 : result.status === "interrupted" ? 130 : 1;
}

/**
 * An AI SDK 7 `experimental_sandbox` backed by a shell {@link Session}
 * (bash, zsh, sh): pass it to `generateText({ experimental_sandbox })` so
 * sandbox-aware tools run their commands in the terminal.
 *
 * What a PTY gives differently from a container sandbox: one merged output
 * stream (`stdout` holds everything, `stderr` is always empty); commands run
 * one at a time (calls wait their turn); and state persists — a command run
 * without `workingDirectory` or `env` runs in the session's own shell, so
 * `cd`, variables and activated environments carry over to the next one
 * (with either option it runs in a subshell, as the interface describes).
 * Files are read and written on the host's file system, relative to
 * `baseDirectory`: for a session that runs inside a container, use the
 * container's own sandbox instead. A terminal is not a sandbox.
 */
export function terminalSandbox(session: Session, options: TerminalSandboxOptions = {}): SandboxSession {
  const base = options.baseDirectory ?? process.cwd();
  const at = (path: string): string => (isAbsolute(path) ? path : resolve(base, path));
  const codeOf = (command: string, workingDirectory: string | undefined, env: Record<string, string> | undefined): string => {
    if (workingDirectory === undefined && (env === undefined || Object.keys(env).length === 0)) return command;
    const exports = Object.entries(env ?? {}).map(([key, value]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new TypeError(`invalid environment variable name ${JSON.stringify(key)}`);
      return `export ${key}=${quote(value)}; `;
    });
    return `( cd -- ${quote(at(workingDirectory ?? "."))} && ${exports.join("")}${command}\n)`;
  };
  const fire = (command: string, workingDirectory?: string, env?: Record<string, string>, signal?: AbortSignal): Cell =>
    session.fire(codeOf(command, workingDirectory, env), { queue: true, ...(signal === undefined ? {} : { signal }) });
  const missing = (error: unknown): boolean => (error as NodeJS.ErrnoException)?.code === "ENOENT";

  const sandbox = {
    description: [
      `A persistent terminal (agent-tty session '${session.name}', ${session.command}). Commands run one at a time in the same shell: cd, variables and activated environments persist between commands; stdout and stderr arrive merged in stdout. Relative paths resolve against ${base}.`,
      options.description,
    ]
      .filter((part) => part !== undefined)
      .join(" "),
    async run({ command, workingDirectory, env, abortSignal }) {
      const result = await fire(command, workingDirectory, env, abortSignal).result;
      if (result.status === "interrupted" && abortSignal?.aborted === true) throw abortSignal.reason;
      return { exitCode: exitCodeOf(result), stdout: result.output, stderr: "" };
    },
    async spawn({
      command,
      workingDirectory,
      env,
      abortSignal,
      stdin,
    }: {
      command: string;
      workingDirectory?: string;
      env?: Record<string, string>;
      abortSignal?: AbortSignal;
      stdin?: boolean;
    }) {
      const cell = fire(command, workingDirectory, env, abortSignal);
      const stdout = new ReadableStream<Uint8Array>({
        async start(controller) {
          try {
            for await (const chunk of cell) controller.enqueue(encoder.encode(chunk));
          } catch {
            /* the cell never started: wait() reports it */
          }
          controller.close();
        },
      });
      const handle = {
        pid: session.pid,
        stdout,
        stderr: new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }),
        async wait() {
          const result = await cell.result;
          if (result.status === "interrupted" && abortSignal?.aborted === true) throw abortSignal.reason;
          return { exitCode: exitCodeOf(result) };
        },
        async kill() {
          if (session.activeCell?.id === cell.id) await session.interrupt();
        },
      };
      if (stdin !== true) return handle;
      const decoder = new TextDecoder();
      return {
        ...handle,
        stdin: new WritableStream<Uint8Array>({
          write(chunk) {
            if (session.activeCell?.id === cell.id) session.write(decoder.decode(chunk, { stream: true }));
          },
          close() {
            if (session.activeCell?.id === cell.id) session.press("ctrl+d");
          },
        }),
      };
    },
    async readFile({ path }) {
      try {
        const bytes = await readFile(at(path));
        return new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new Uint8Array(bytes));
            controller.close();
          },
        });
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
    async readBinaryFile({ path }) {
      try {
        return new Uint8Array(await readFile(at(path)));
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
    async readTextFile({ path, encoding, startLine, endLine }) {
      let text: string;
      try {
        text = new TextDecoder(encoding ?? "utf-8").decode(await readFile(at(path)));
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
      if (startLine === undefined && endLine === undefined) return text;
      const lines = text.split("\n");
      return lines.slice((startLine ?? 1) - 1, endLine ?? lines.length).join("\n");
    },
    async writeFile({ path, content }) {
      const chunks: Uint8Array[] = [];
      const reader = content.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
      }
      await mkdir(dirname(at(path)), { recursive: true });
      await writeFile(at(path), Buffer.concat(chunks));
    },
    async writeBinaryFile({ path, content }) {
      await mkdir(dirname(at(path)), { recursive: true });
      await writeFile(at(path), content);
    },
    async writeTextFile({ path, content }) {
      await mkdir(dirname(at(path)), { recursive: true });
      await writeFile(at(path), content, "utf8");
    },
    async stat({ path }) {
      try {
        const info = await stat(at(path));
        return { type: info.isFile() ? "file" : info.isDirectory() ? "directory" : "other", size: info.size };
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
    async listDirectory({ path }) {
      try {
        const entries = await readdir(at(path), { withFileTypes: true });
        return entries.map((entry) => ({
          name: entry.name,
          type: entry.isSymbolicLink() ? "symlink" : entry.isFile() ? "file" : entry.isDirectory() ? "directory" : "other",
        }));
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
    async deleteFile({ path }) {
      try {
        const info = await stat(at(path)).catch(() => undefined);
        if (info?.isDirectory() === true) throw new Error(`${path} is a directory`);
        await rm(at(path));
        return true;
      } catch (error) {
        if (missing(error)) return false;
        throw error;
      }
    },
  } satisfies Omit<SandboxSession, "spawn"> & { spawn: unknown };
  return sandbox as SandboxSession;
}
