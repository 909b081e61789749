import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * `node:child_process`, loaded on first use: a session and its cells never need it (it runs `stty`
 * for a terminal query, and the hook detector's program), and loading it with the modules it
 * loads (`dgram`, the socket list) costs a driver ~0.8 MB of resident memory.
 */
export function childProcess(): typeof import("node:child_process") {
  return require("node:child_process") as typeof import("node:child_process");
}

/** `node:readline`, loaded on first use (reading a recording back): ~0.2 MB resident otherwise. */
export function readline(): typeof import("node:readline") {
  return require("node:readline") as typeof import("node:readline");
}
