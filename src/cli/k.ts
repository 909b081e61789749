#!/usr/bin/env node
/**
 * `k`: the agent-facing command line of agent-tty (see CLI.md). Start-up
 * time matters here: this entry point imports only the small client.
 */
import { runK } from "./run-k.js";

process.exit(await runK(process.argv.slice(2)));
