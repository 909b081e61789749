/**
 * `agent-tty mcp [--allow bash,python3] [--max-sessions N] [--max-output-chars N] [--cwd DIR] [--wait-ms N]`:
 * the terminal tools as an MCP server on stdio (what an MCP host starts).
 * Loaded only for this subcommand, so the other commands never load the MCP SDK.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, type McpServerOptions } from "../adapters/mcp.js";

const USAGE = "usage: agent-tty mcp [--allow CMD,CMD] [--max-sessions N] [--max-output-chars N] [--wait-ms N] [--cwd DIR]";

/** Parses the flags; returns an error message for bad ones. */
export function parseMcpArgs(argv: readonly string[]): McpServerOptions | string {
  const options: { -readonly [K in keyof McpServerOptions]: McpServerOptions[K] } = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    const count = value !== undefined && /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
    if (flag === "--help" || flag === "-h") return USAGE;
    if (value === undefined) return `${flag} needs a value\n${USAGE}`;
    i += 1;
    if (flag === "--allow") options.allowCommands = value.split(",").filter((name) => name !== "");
    else if (flag === "--cwd") options.defaults = { ...options.defaults, cwd: value };
    else if (flag === "--max-sessions" && count !== undefined) options.maxSessions = count;
    else if (flag === "--max-output-chars" && count !== undefined) options.maxOutputChars = count;
    else if (flag === "--wait-ms" && count !== undefined) options.waitMs = count;
    else return `unknown or invalid option ${flag} ${value}\n${USAGE}`;
  }
  return options;
}

/** Runs the MCP server on stdio until the host closes stdin; resolves with the exit code. */
export async function mcpCommand(argv: readonly string[]): Promise<number> {
  const options = parseMcpArgs(argv);
  if (typeof options === "string") {
    process.stderr.write(`${options}\n`);
    return options === USAGE ? 0 : 2;
  }
  const server = createMcpServer(options);
  const closed = new Promise<void>((resolve) => {
    const previous = server.server.onclose;
    server.server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  await server.connect(new StdioServerTransport());
  const stop = (): void => void server.close();
  process.stdin.once("end", stop);
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  await closed;
  return 0;
}
