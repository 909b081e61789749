/**
 * `agent-tty/langchain`: the terminal tools as LangChain.js tools.
 *
 * @module
 */
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { TerminalToolkit, type TerminalToolOptions, type ToolOutcome } from "../tools/index.js";

/**
 * The terminal tools as LangChain `tool()`s from `@langchain/core/tools`,
 * with `responseFormat: "content_and_artifact"`: the model reads the
 * rendered text, the outcome (a `CellResult`, …) rides along as the
 * `ToolMessage`'s `artifact`. Usable by `createAgent` from `langchain`, or
 * any model's `bindTools`. A tool never throws into the agent loop; the run's
 * `signal` interrupts the cell.
 *
 * Pass a `manager` (and close it) or a {@link TerminalToolkit}; otherwise
 * `closeTerminalTools(tools)` ends the sessions the tools opened.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { SessionManager } from "agent-tty";
 * import { terminalTools } from "agent-tty/langchain";
 * const manager = new SessionManager();
 * const agent = createAgent({ model: "openai:gpt-5", tools: terminalTools({ manager }) });
 * await agent.invoke({ messages: [{ role: "user", content: "Which python is installed?" }] });
 * await manager.closeAll();
 * ```
 */
export function terminalTools(options: TerminalToolOptions | TerminalToolkit = {}): StructuredToolInterface[] {
  const kit = options instanceof TerminalToolkit ? options : new TerminalToolkit(options);
  const tools = kit.tools.map((definition) =>
    tool(
      async (input: unknown, config?: { signal?: AbortSignal }): Promise<[string, ToolOutcome]> => {
        const outcome = await definition.execute(input, { signal: config?.signal });
        return [kit.render(outcome), outcome];
      },
      {
        name: definition.name,
        description: definition.description,
        schema: definition.inputSchema,
        responseFormat: "content_and_artifact",
      },
    ),
  ) as StructuredToolInterface[];
  Object.defineProperty(tools, TOOLKIT, { value: kit, enumerable: false });
  return tools;
}

const TOOLKIT = Symbol.for("agent-tty.toolkit");

/** The {@link TerminalToolkit} behind tools made by {@link terminalTools}. */
export function terminalToolkitOf(tools: readonly StructuredToolInterface[]): TerminalToolkit {
  const kit = (tools as unknown as Record<symbol, unknown>)[TOOLKIT];
  if (!(kit instanceof TerminalToolkit)) throw new TypeError("Expected tools made by terminalTools() from agent-tty/langchain");
  return kit;
}

/** Ends the sessions that tools made by {@link terminalTools} opened. */
export async function closeTerminalTools(tools: readonly StructuredToolInterface[]): Promise<void> {
  await terminalToolkitOf(tools).close();
}
