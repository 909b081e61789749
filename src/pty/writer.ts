import { writeSync } from "node:fs";

/** Retries after the terminal's input buffer was full: every turn of the event loop at first, then slower. */
const FAST_RETRIES = 8;
const MAX_RETRY_MS = 50;

/**
 * Writes to the PTY's master side in order, without a round trip through
 * the thread pool: a small write (a cell, a key) goes to the terminal at
 * once with one `write(2)`, where node-pty would queue it for a worker
 * thread. The descriptor is non-blocking; what does not fit while the
 * program is not reading waits here and is retried, with backoff, so a
 * program that never reads does not spin the CPU.
 */
export class PtyWriter {
  // TypeScript `private`, not `#private`: a field read a private name costs ~40 instructions more in code
  // not optimized yet (every cell writes here, mostly before V8 optimizes anything).
  private readonly fd: number;
  private readonly queue: Buffer[] = [];
  private retry: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private fullRetries = 0;
  private closed = false;

  constructor(fd: number) {
    this.fd = fd;
  }

  write(data: string): void {
    if (this.closed || data === "") return;
    if (this.queue.length === 0 && this.retry === undefined) {
      // Nothing waiting (a cell, a key): the text goes as it is, no buffer made for it unless it does not fit.
      const written = this.writeNow(data);
      if (written === undefined) return;
      const bytes = Buffer.byteLength(data);
      if (written >= bytes) return;
      this.queue.push(Buffer.from(data, "utf8").subarray(written));
      this.scheduleRetry();
      return;
    }
    this.queue.push(Buffer.from(data, "utf8"));
    if (this.retry === undefined) this.drain();
  }

  /** One `write(2)` of `data` now: the bytes written (0 when the terminal is full), `undefined` when it is gone. */
  private writeNow(data: string): number | undefined {
    try {
      const written = writeSync(this.fd, data);
      this.fullRetries = 0;
      return written;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") return 0;
      this.close(); // EIO and the like: the terminal is gone
      return undefined;
    }
  }

  /** Drops what is still queued (the terminal is going away). */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.cancelRetry();
  }

  private drain(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0] as Buffer;
      let written: number;
      try {
        written = writeSync(this.fd, head);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
          this.scheduleRetry();
        } else {
          this.close(); // EIO and the like: the terminal is gone
        }
        return;
      }
      this.fullRetries = 0;
      if (written < head.length) {
        this.queue[0] = head.subarray(written);
        this.scheduleRetry();
        return;
      }
      this.queue.shift();
    }
  }

  private scheduleRetry(): void {
    const retry = () => {
      this.retry = undefined;
      this.drain();
    };
    this.fullRetries++;
    this.retry =
      this.fullRetries <= FAST_RETRIES
        ? setImmediate(retry)
        : setTimeout(retry, Math.min(2 ** (this.fullRetries - FAST_RETRIES), MAX_RETRY_MS));
  }

  private cancelRetry(): void {
    if (this.retry === undefined) return;
    clearTimeout(this.retry as NodeJS.Timeout);
    clearImmediate(this.retry as NodeJS.Immediate);
    this.retry = undefined;
  }
}
