import { randomFillSync } from "node:crypto";

const ID_BYTES = 6;
const POOL_IDS = 256;
const pool = Buffer.alloc(ID_BYTES * POOL_IDS);
let next = POOL_IDS;

/** A random id of 12 hex digits, like the original agent-tty's cell ids (drawn from a pool: one per cell). */
export function cellId(): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const start = next++ * ID_BYTES;
  return pool.toString("hex", start, start + ID_BYTES);
}
