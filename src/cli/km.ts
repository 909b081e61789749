#!/usr/bin/env node
/**
 * `km <session> [cell_id] [-1]`: one JSON event per stdout line (see CLI.md).
 */
import { runKm } from "./run-km.js";

process.exit(await runKm(process.argv.slice(2)));
