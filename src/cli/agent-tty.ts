#!/usr/bin/env node
/**
 * `agent-tty daemon status|stop|start|run`, `agent-tty serve …` (the HTTP
 * server, loaded only then), `agent-tty mcp …` (the MCP server on stdio,
 * loaded only then), `agent-tty --version`; any other
 * arguments are handled like `k`'s.
 */
import { daemonCommand, runK } from "./client/run-k.js";

const argv = process.argv.slice(2);
if (argv[0] === "mcp") {
  const { mcpCommand } = await import("./mcp.js");
  process.exit(await mcpCommand(argv.slice(1)));
}
if (argv[0] === "serve") {
  const { serveCommand } = await import("./serve.js");
  process.exit(await serveCommand(argv.slice(1)));
}
process.exit(argv[0] === "daemon" ? await daemonCommand(argv[1] ?? "status") : await runK(argv));
