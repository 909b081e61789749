import { closeSync, constants, openSync, readvSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import * as nodePty from "node-pty";
import type { SpawnPlan } from "./spawn-plan.js";
import { PtyWriter } from "./writer.js";

/** How the PTY's program ended. */
export interface PtyExit {
  readonly exitCode: number;
  readonly signal: number | undefined;
}

/** The PTY as the rest of agent-tty sees it: text in, text out, one exit. */
export interface PtyProcess {
  readonly pid: number;
  /** The slave side's device path (`/dev/pts/N`), where known. */
  readonly ptsName: string | undefined;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Signals the program (not its whole session). */
  kill(signal: NodeJS.Signals): void;
  /**
   * Whether the program printed something not read yet: a read of the terminal that does not
   * wait (Linux flushes what the program wrote on the way, so after the program was seen blocked
   * reading, `false` means everything it printed was read). What it reads is handed to `onData`
   * before anything read later, once the current call stack is done (a microtask), never
   * inside this call. `false` where it cannot tell.
   */
  hasUnreadOutput(): boolean;
  /** Lets the terminal hang up once the program is gone (call before ending it on purpose). */
  releaseSlave(): void;
  /** Stops reading and frees the PTY; idempotent. */
  destroy(): void;
}

/** Callbacks of {@link spawnPty}. */
export interface PtyHandlers {
  /** Decoded text, UTF-8 sequences split between reads joined again. */
  onData(text: string): void;
  /** After the last data was delivered. */
  onExit(exit: PtyExit): void;
  /** Every write to the terminal, before it is written (recordings). */
  onInput?(data: string): void;
}

/**
 * Starts `plan` in a new PTY. The only place node-pty is imported: reads are
 * raw Buffers decoded by one streaming UTF-8 decoder (string mode costs 2x on
 * bulk output), and node-pty only reports exit once the terminal drained.
 */
export function spawnPty(plan: SpawnPlan, size: { cols: number; rows: number }, handlers: PtyHandlers): PtyProcess {
  const pty = nodePty.spawn(plan.command, plan.args, {
    name: plan.env["TERM"] ?? "xterm-256color",
    cols: size.cols,
    rows: size.rows,
    cwd: plan.cwd,
    env: plan.env,
    encoding: null,
  } as nodePty.IPtyForkOptions);
  const decoder = new StringDecoder("utf8");
  // node-pty writes through the thread pool; where its descriptor is known (Unix) we write ourselves.
  const fd = (pty as nodePty.IPty & { fd?: unknown }).fd;
  const writer = typeof fd === "number" ? new PtyWriter(fd) : undefined;
  let destroyed = false;
  let exited = false;
  // Our own handle on the terminal's slave side: when the program exits, Linux would otherwise hang
  // the terminal up and drop output not read yet (node-pty reports exit without it). Held open,
  // the rest drains before node-pty reports the exit. Never read: it only keeps the terminal alive.
  let slave = openSlave(pty);
  const releaseSlave = () => {
    if (slave === undefined) return;
    closeSync(slave);
    slave = undefined;
  };

  const deliver = (data: string | Buffer): void => {
    const text = typeof data === "string" ? data : decoder.write(data);
    if (text !== "") handlers.onData(text);
  };
  pty.onData(deliver);
  pty.onExit(({ exitCode, signal }) => {
    exited = true;
    writer?.close();
    releaseSlave();
    const rest = decoder.end();
    if (rest !== "") handlers.onData(rest);
    handlers.onExit({ exitCode, signal });
  });

  return {
    pid: pty.pid,
    ptsName: (pty as nodePty.IPty & { ptsName?: string }).ptsName,
    write(data) {
      if (destroyed || exited) return;
      handlers.onInput?.(data);
      if (writer === undefined) pty.write(data);
      else writer.write(data);
    },
    resize(cols, rows) {
      if (!destroyed && !exited) pty.resize(cols, rows);
    },
    kill(signal) {
      if (exited) return;
      try {
        process.kill(pty.pid, signal);
      } catch {
        // already gone
      }
    },
    hasUnreadOutput() {
      if (typeof fd !== "number" || destroyed || exited) return false;
      // Nothing there is the usual answer, and an error (EAGAIN) each time: no stack trace to build.
      const stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      let read = 0;
      try {
        read = readvSync(fd, unreadScratchList);
      } catch {
        return false;
      } finally {
        Error.stackTraceLimit = stackTraceLimit;
      }
      if (read <= 0) return false;
      // Handed over after the current call, as node-pty hands over each of its reads.
      const data = Buffer.from(unreadScratch.subarray(0, read));
      queueMicrotask(() => {
        if (!destroyed) deliver(data);
      });
      return true;
    },
    releaseSlave,
    destroy() {
      releaseSlave();
      if (destroyed) return;
      destroyed = true;
      writer?.close();
      try {
        // UnixTerminal.destroy() (missing from the typings) closes our side of the PTY.
        const closable = pty as nodePty.IPty & { destroy?: () => void };
        if (closable.destroy !== undefined) closable.destroy();
        else pty.kill();
      } catch {
        // already closed
      }
    },
  };
}

/** Where {@link PtyProcess.hasUnreadOutput} reads (copied out when it got something). */
const unreadScratch = Buffer.allocUnsafe(64 * 1024);
/** `unreadScratch` as `readvSync` takes it (fewer argument checks than `readSync`). */
const unreadScratchList = [unreadScratch];

function openSlave(pty: nodePty.IPty): number | undefined {
  const path = (pty as nodePty.IPty & { ptsName?: string }).ptsName;
  if (path === undefined) return undefined;
  try {
    return openSync(path, constants.O_RDWR | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
}
