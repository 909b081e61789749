#!/usr/bin/env node
/**
 * `km <session> [cell_id] [-1]`: one JSON event per stdout line (see CLI.md).
 */
import * as module from "node:module";

// Node >= 22.1 can keep compiled code between runs (Node 20 has no such cache).
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { runKm } = await import("./client/run-km.js");
process.exit(await runKm(process.argv.slice(2)));
