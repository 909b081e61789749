import { randomText } from "./random.js";

const ID_BYTES = 6;
const ID_CHARS = ID_BYTES * 2;
const POOL_IDS = 256;
/** Ids of a pool in hex, read at once from the random pool (one conversion instead of one per id, no Buffer of its own). */
let hex = "";
let next = POOL_IDS;

/** A random id of 12 hex digits, like the original agent-tty's cell ids (drawn from a pool: one per cell). */
export function cellId(): string {
  if (next === POOL_IDS) {
    hex = randomText(ID_BYTES * POOL_IDS, "hex");
    next = 0;
  }
  const start = next++ * ID_CHARS;
  return hex.slice(start, start + ID_CHARS);
}
