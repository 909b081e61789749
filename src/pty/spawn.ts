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
  return new NodePtyProcess(pty, handlers);
}

/**
 * A node-pty terminal as a {@link PtyProcess}: a class, so its methods are shared by every session
 * (an object of closures was ~0.6 kB a session, kept while it lives).
 */
class NodePtyProcess implements PtyProcess {
  // TypeScript `private`, not `#private`: a field read a private name costs ~40 instructions more in code
  // not optimized yet (every read of the terminal passes here).
  readonly pid: number;
  readonly ptsName: string | undefined;
  private readonly pty: nodePty.IPty;
  private readonly handlers: PtyHandlers;
  /** node-pty's descriptor of our side (Unix), where we read and write ourselves. */
  private readonly fd: number | undefined;
  // node-pty writes through the thread pool; where its descriptor is known (Unix) we write ourselves.
  private readonly writer: PtyWriter | undefined;
  /**
   * Joins UTF-8 sequences split between reads: made at the first read that ends inside one (most
   * sessions never see one: an idle session keeps none, ~0.5 kB with its buffers).
   */
  private decoder: StringDecoder | undefined;
  private destroyed = false;
  private exited = false;
  // Our own handle on the terminal's slave side: when the program exits, Linux would otherwise hang
  // the terminal up and drop output not read yet (node-pty reports exit without it). Held open,
  // the rest drains before node-pty reports the exit. Never read: it only keeps the terminal alive.
  private slave: number | undefined;

  constructor(pty: nodePty.IPty, handlers: PtyHandlers) {
    this.pty = pty;
    this.handlers = handlers;
    this.pid = pty.pid;
    this.ptsName = (pty as nodePty.IPty & { ptsName?: string }).ptsName;
    const fd = (pty as nodePty.IPty & { fd?: unknown }).fd;
    this.fd = typeof fd === "number" ? fd : undefined;
    this.writer = this.fd === undefined ? undefined : new PtyWriter(this.fd);
    this.slave = openSlave(pty);
    // node-pty passes each read from the socket it reads to `onData` through a listener of its own
    // and an emitter that copies its listener list each time (1.5k instructions a read, cold): where
    // its socket's events are at hand (`on`, out of its typings since 1.0), the read comes straight.
    const socket = pty as nodePty.IPty & Partial<SocketEvents>;
    if (typeof socket.on === "function" && typeof socket.removeAllListeners === "function") {
      socket.removeAllListeners("data");
      socket.on("data", this.deliver);
    } else pty.onData(this.deliver);
    skipReadAhead(pty);
    pty.onExit(({ exitCode, signal }) => {
      this.exited = true;
      this.writer?.close();
      this.releaseSlave();
      const rest = this.decoder?.end() ?? "";
      if (rest !== "") handlers.onData(rest);
      handlers.onExit({ exitCode, signal });
    });
  }

  /** Takes one read of the terminal (the socket's listener itself: no call in between). */
  private readonly deliver = (data: string | Buffer): void => {
    let text: string;
    if (typeof data === "string") text = data;
    else if (this.decoder !== undefined) text = this.decoder.write(data);
    // Most reads end in ASCII (a prompt, a line end): nothing to look back at. `utf8Slice` is what
    // `toString("utf8")` calls, without its argument checks (1.4k instructions a read, not 3.2k, cold).
    else if ((data[data.length - 1] as number) < 0x80 || !endsInsideUtf8Sequence(data)) {
      text = HAS_UTF8_SLICE ? (data as Utf8Sliceable).utf8Slice(0, data.length) : data.toString("utf8");
    } else {
      this.decoder = new StringDecoder("utf8");
      text = this.decoder.write(data);
    }
    if (text !== "") this.handlers.onData(text);
  };

  write(data: string): void {
    if (this.destroyed || this.exited) return;
    this.handlers.onInput?.(data);
    if (this.writer === undefined) this.pty.write(data);
    else this.writer.write(data);
  }

  resize(cols: number, rows: number): void {
    if (!this.destroyed && !this.exited) this.pty.resize(cols, rows);
  }

  kill(signal: NodeJS.Signals): void {
    if (this.exited) return;
    try {
      process.kill(this.pid, signal);
    } catch {
      // already gone
    }
  }

  hasUnreadOutput(): boolean {
    const fd = this.fd;
    if (fd === undefined || this.destroyed || this.exited) return false;
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
      if (!this.destroyed) this.deliver(data);
    });
    return true;
  }

  releaseSlave(): void {
    if (this.slave === undefined) return;
    closeSync(this.slave);
    this.slave = undefined;
  }

  destroy(): void {
    this.releaseSlave();
    if (this.destroyed) return;
    this.destroyed = true;
    this.writer?.close();
    try {
      // UnixTerminal.destroy() (missing from the typings) closes our side of the PTY.
      const closable = this.pty as nodePty.IPty & { destroy?: () => void };
      if (closable.destroy !== undefined) closable.destroy();
      else this.pty.kill();
    } catch {
      // already closed
    }
  }
}

/**
 * Whether `bytes` ends inside a UTF-8 sequence (its last lead byte announces more bytes than
 * follow it), as a streaming decoder would hold back the end. A lone or stray byte is not held:
 * it decodes to U+FFFD either way.
 */
function endsInsideUtf8Sequence(bytes: Buffer): boolean {
  const length = bytes.length;
  for (let index = length - 1; index >= 0 && index >= length - 3; index--) {
    const byte = bytes[index] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const size = (byte & 0xe0) === 0xc0 ? 2 : (byte & 0xf0) === 0xe0 ? 3 : (byte & 0xf8) === 0xf0 ? 4 : 1;
    return size > length - index;
  }
  return false;
}

/**
 * After every read a stream schedules a `process.nextTick` to read ahead (`maybeReadMore`): for the
 * PTY's socket, flowing with its handle reading all along, it finds nothing to do. That tick sends the
 * microtasks after a read (the awaiting caller's continuation, when the read ended a cell) through
 * Node's JavaScript tick loop instead of V8's checkpoint: some 15 us later, every cell. Marking the
 * read-ahead as under way (it never ends) schedules none. Node's `readingMore`, feature-tested: a
 * stream without it reads ahead as before.
 */
function skipReadAhead(pty: nodePty.IPty): void {
  const state = (pty as nodePty.IPty & { _socket?: { _readableState?: { readingMore?: unknown } } })._socket?._readableState;
  if (state !== undefined && state.readingMore === false) state.readingMore = true;
}

/** The events of the socket a node-pty terminal reads, as its `on` and `removeAllListeners` reach them. */
interface SocketEvents {
  on(event: "data", listener: (data: string | Buffer) => void): void;
  removeAllListeners(event: "data"): void;
}

/** Node's Buffer has the undocumented `utf8Slice` that `toString("utf8")` calls (every Node since 0.x). */
type Utf8Sliceable = Buffer & { utf8Slice(start: number, end: number): string };
const HAS_UTF8_SLICE = typeof (Buffer.prototype as Partial<Utf8Sliceable>).utf8Slice === "function";

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
