import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PtyWriter } from "../../src/pty/writer.js";

// A FIFO stands in for the terminal's master side here: a non-blocking descriptor whose buffer
// (64 kB) fills when nobody reads, which is what the writer's queue and retries are for.
let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

function fifo(): { reader: number; writer: number } {
  const dir = mkdtempSync(join(tmpdir(), "pty-writer-"));
  const path = join(dir, "fifo");
  execFileSync("mkfifo", [path]);
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  cleanup.push(() => {
    closeSync(writer);
    closeSync(reader);
    rmSync(dir, { recursive: true, force: true });
  });
  return { reader, writer };
}

/** Reads what is there now (non-blocking). */
function readNow(fd: number): Buffer {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") break;
      throw error;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks);
}

const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

describe("PtyWriter", () => {
  it("writes small texts at once, in order, multi-byte characters included", () => {
    const { reader, writer } = fifo();
    const w = new PtyWriter(writer);
    w.write("echo hi\r");
    w.write("");
    w.write("héllo ✓\r");
    expect(readNow(reader).toString("utf8")).toBe("echo hi\rhéllo ✓\r");
    w.close();
  });

  it("keeps what does not fit while nobody reads and delivers every byte in order once the reader drains", async () => {
    const { reader, writer } = fifo();
    const w = new PtyWriter(writer);
    // 1 MB in pieces of varied size (ASCII and multi-byte), far more than the FIFO holds.
    const pieces: string[] = [];
    for (let i = 0; pieces.join("").length < 1 << 20; i++) pieces.push(`${i}:${"é✓x".repeat(i % 500)}\n`);
    for (const piece of pieces) w.write(piece);
    const want = Buffer.from(pieces.join(""), "utf8");
    const got: Buffer[] = [];
    let total = 0;
    const deadline = Date.now() + 20_000;
    while (total < want.length && Date.now() < deadline) {
      const chunk = readNow(reader);
      got.push(chunk);
      total += chunk.length;
      await turn();
    }
    expect(Buffer.concat(got).equals(want)).toBe(true);
    w.close();
  });

  it("drops what is queued on close and writes nothing after", async () => {
    const { reader, writer } = fifo();
    const w = new PtyWriter(writer);
    w.write("x".repeat(200_000)); // fills the FIFO; the rest waits
    w.close();
    w.write("after close");
    let total = 0;
    for (let i = 0; i < 20; i++) {
      total += readNow(reader).length;
      await turn();
    }
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThan(200_000);
  });
});
