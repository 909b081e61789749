#!/usr/bin/env node
/**
 * The session daemon's entry point, started detached by the first `k` call
 * that needs it (or in the foreground by `agent-tty daemon run`).
 */
import { runDaemon } from "./daemon/main.js";

process.exit(await runDaemon());
