#!/usr/bin/env node
/**
 * `k`: the agent-facing command line of agent-tty (see CLI.md). Start-up
 * time matters here: this entry point imports only the small client.
 */
import * as module from "node:module";

// Node >= 22.1 can keep compiled code between runs (Node 20 has no such cache).
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { runK } = await import("./client/run-k.js");
process.exit(await runK(process.argv.slice(2)));
