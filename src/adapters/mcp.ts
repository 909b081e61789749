/**
 * `agent-tty/mcp`: the terminal tools as a Model Context Protocol server.
 *
 * @module
 */
import { createRequire } from "node:module";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { TerminalToolkit, type TerminalToolOptions, type ToolOutcome } from "../tools/index.js";

/** Options of {@link createMcpServer}: the shared tool options, plus the server's identity. */
export interface McpServerOptions extends TerminalToolOptions {
  /**
   * The server's name and version, as MCP clients show them.
   * @default { name: "agent-tty", version: the package's version }
   */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Use this toolkit (and its sessions) instead of making one from the options. */
  readonly toolkit?: TerminalToolkit;
}

/** The outcome as plain JSON (dates as ISO strings), for `structuredContent`. */
function toJson(outcome: ToolOutcome): Record<string, unknown> {
  return JSON.parse(JSON.stringify(outcome)) as Record<string, unknown>;
}

/**
 * An `McpServer` (from `@modelcontextprotocol/sdk`) offering the terminal
 * tools with `registerTool`: the text a model reads as `content`, the
 * outcome (a `CellResult`'s fields, …) as `structuredContent`, tool
 * annotations (read-only `terminal_screen`/`terminal_list`, destructive
 * `terminal_close`…), progress notifications while a cell runs, the
 * request's cancellation interrupting the cell, and each session's screen
 * (`terminal://SESSION/screen`) and history (`terminal://SESSION/history`)
 * as resources. Closing the server closes the sessions it opened.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * import { createMcpServer } from "agent-tty/mcp";
 * const server = createMcpServer({ allowCommands: ["bash", "python3"] });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(options: McpServerOptions = {}): McpServer {
  const { serverInfo, toolkit, ...toolOptions } = options;
  const kit = toolkit ?? new TerminalToolkit(toolOptions);
  const server = new McpServer(serverInfo ?? { name: "agent-tty", version: packageVersion() }, {
    capabilities: { tools: {}, resources: {} },
    instructions:
      "Persistent terminals: terminal_open starts one (bash by default, or a REPL such as python3); terminal_run runs a cell and returns a status line (status, exit code, cwd, duration) and the output; answer programs that ask with terminal_send. Sessions keep their state until terminal_close.",
  });

  for (const definition of kit.tools) {
    const { title, ...hints } = definition.annotations;
    server.registerTool(
      definition.name,
      { title, description: definition.description, inputSchema: definition.inputSchema, annotations: { title, ...hints } },
      async (
        input: unknown,
        extra: {
          signal: AbortSignal;
          _meta?: { progressToken?: string | number | undefined } | undefined;
          sendNotification: (notification: never) => Promise<void>;
        },
      ) => {
        const token = extra._meta?.progressToken;
        let progress = 0;
        const outcome = await definition.execute(input, {
          signal: extra.signal,
          ...(token === undefined
            ? {}
            : {
                onProgress: (update) => {
                  progress += 1;
                  void extra
                    .sendNotification({
                      method: "notifications/progress",
                      params: { progressToken: token, progress, message: kit.render(update) },
                    } as never)
                    .catch(() => {});
                },
              }),
        });
        return {
          content: [{ type: "text" as const, text: kit.render(outcome) }],
          structuredContent: toJson(outcome),
          ...(outcome.kind === "error" ? { isError: true } : {}),
        };
      },
    );
  }

  const list = () => ({
    resources: kit.manager.list().flatMap((info) => [
      {
        uri: `terminal://${info.name}/screen`,
        name: `${info.name} screen`,
        description: `What a person would see on session '${info.name}' now`,
        mimeType: "text/plain",
      },
      {
        uri: `terminal://${info.name}/history`,
        name: `${info.name} history`,
        description: `The last lines of session '${info.name}''s transcript`,
        mimeType: "text/plain",
      },
    ]),
  });
  const read = (kind: "screen" | "history") => (uri: URL, variables: Record<string, string | string[]>) => {
    const name = String(variables["session"]);
    const session = kit.manager.list().some((info) => info.name === name) ? kit.manager.get(name) : undefined;
    if (session === undefined) throw new Error(`there is no open session named '${name}'`);
    const text = kind === "screen" ? session.screen() : session.history(500);
    return { contents: [{ uri: uri.href, mimeType: "text/plain", text }] };
  };
  server.registerResource(
    "terminal-screen",
    new ResourceTemplate("terminal://{session}/screen", { list }),
    { title: "Terminal screen", description: "What a person would see on a session's terminal now", mimeType: "text/plain" },
    read("screen"),
  );
  server.registerResource(
    "terminal-history",
    new ResourceTemplate("terminal://{session}/history", { list: undefined }),
    {
      title: "Terminal history",
      description: "The last 500 lines of a session's clean transcript (input lines included)",
      mimeType: "text/plain",
    },
    read("history"),
  );

  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    if (toolkit === undefined) void kit.close();
  };
  return server;
}

function packageVersion(): string {
  try {
    return String((createRequire(import.meta.url)("../../package.json") as { version: unknown }).version);
  } catch {
    return "0.0.0";
  }
}
