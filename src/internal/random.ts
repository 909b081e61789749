import { closeSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";

/** Bytes read from the kernel at a time; each byte is handed out once. */
const POOL_BYTES = 4096;

const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;
/** How the pool is refilled: from /dev/urandom, or, where there is none, node:crypto. */
let refill: ((target: Buffer) => void) | undefined;

/**
 * Fills `target` with cryptographically strong random bytes.
 *
 * They come from the kernel's generator (`/dev/urandom`, the source Node's
 * own generator is seeded from), read 4 kB at a time: a driver asks for a
 * few bytes per session and per cell, and loading `node:crypto` for them
 * costs more than a megabyte of resident memory (its modules and the
 * OpenSSL pages they touch). Where there is no `/dev/urandom` (Windows),
 * `node:crypto` is loaded on first use.
 */
export function randomFill(target: Buffer): Buffer {
  let at = 0;
  while (at < target.length) {
    if (used === POOL_BYTES) {
      (refill ??= chooseRefill())(pool);
      used = 0;
    }
    const count = Math.min(target.length - at, POOL_BYTES - used);
    pool.copy(target, at, used, used + count);
    // A byte handed out is never handed out again.
    pool.fill(0, used, used + count);
    used += count;
    at += count;
  }
  return target;
}

/** `size` cryptographically strong random bytes (see {@link randomFill}). */
export function randomBytes(size: number): Buffer {
  return randomFill(Buffer.alloc(size));
}

/**
 * `size` cryptographically strong random bytes written as text (`hex`, `base64url`), read straight
 * from the pool: no Buffer (and its off-heap memory) is made for them (see {@link randomFill}).
 */
export function randomText(size: number, encoding: "hex" | "base64url"): string {
  if (size > POOL_BYTES) return randomBytes(size).toString(encoding);
  if (POOL_BYTES - used < size) {
    // What is left is too little for one run: handed out to nobody (zeroed), and the pool refilled.
    pool.fill(0, used);
    (refill ??= chooseRefill())(pool);
    used = 0;
  }
  const text = pool.toString(encoding, used, used + size);
  pool.fill(0, used, used + size);
  used += size;
  return text;
}

function chooseRefill(): (target: Buffer) => void {
  try {
    closeSync(openSync("/dev/urandom", "r"));
    return readUrandom;
  } catch {
    const crypto = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
    return (target) => crypto.randomFillSync(target);
  }
}

function readUrandom(target: Buffer): void {
  const fd = openSync("/dev/urandom", "r");
  try {
    let at = 0;
    while (at < target.length) {
      const read = readSync(fd, target, at, target.length - at, null);
      if (read <= 0) throw new Error("/dev/urandom gave no bytes");
      at += read;
    }
  } finally {
    closeSync(fd);
  }
}
