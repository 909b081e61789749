/**
 * `agent-tty/ai`: the terminal tools as a Vercel AI SDK `ToolSet` (ai 6 and 7).
 *
 * @module
 */
import { tool, type Tool, type ToolSet } from "ai";
import { TerminalToolkit, type RunningOutcome, type TerminalToolName, type TerminalToolOptions, type ToolOutcome } from "../tools/index.js";

/** What each AI SDK terminal tool returns: the text the model reads and the outcome as data (for UIs). */
export interface TerminalToolResult {
  /** The rendered text the model reads (`toModelOutput`). */
  readonly text: string;
  /** The outcome as data: a `CellResult`, the output so far, an error… */
  readonly outcome: ToolOutcome;
  /** True for a preliminary result streamed while the cell runs. */
  readonly preliminary: boolean;
}

/** The AI SDK tool set, keyed by tool name. */
export type TerminalToolSet = Record<TerminalToolName, Tool<any, TerminalToolResult>> & ToolSet;

/**
 * The terminal tools for `generateText` / `streamText` / `ToolLoopAgent`.
 * Each tool's `execute` is an async generator: while a cell runs it yields
 * preliminary results (the output so far), then the final one; the call's
 * `abortSignal` interrupts the cell (Ctrl-C). The model reads the rendered
 * text (`toModelOutput`); a tool never throws into the loop.
 *
 * Pass a `manager` (and close it), or a {@link TerminalToolkit} to share
 * sessions with other surfaces; otherwise `closeTerminalTools(tools)` ends
 * the sessions the tools opened.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from "ai";
 * import { SessionManager } from "agent-tty";
 * import { terminalTools } from "agent-tty/ai";
 * const manager = new SessionManager();
 * const { text } = await generateText({ model, tools: terminalTools({ manager }), stopWhen: stepCountIs(10), prompt: "How big is /var/log?" });
 * await manager.closeAll();
 * ```
 */
export function terminalTools(options: TerminalToolOptions | TerminalToolkit = {}): TerminalToolSet {
  const kit = options instanceof TerminalToolkit ? options : new TerminalToolkit(options);
  const set: Record<string, Tool<any, TerminalToolResult>> = {};
  for (const definition of kit.tools) {
    set[definition.name] = tool({
      description: definition.description,
      inputSchema: definition.inputSchema,
      execute: async function* (
        input: unknown,
        { abortSignal }: { abortSignal?: AbortSignal },
      ): AsyncGenerator<TerminalToolResult, void, unknown> {
        const progress: RunningOutcome[] = [];
        let wake: (() => void) | undefined;
        let done = false;
        const call = definition
          .execute(input, {
            signal: abortSignal,
            onProgress: (update) => {
              progress.push(update);
              if (progress.length > 1) progress.splice(0, progress.length - 1); // only the latest matters
              wake?.();
            },
          })
          .finally(() => {
            done = true;
            wake?.();
          });
        while (!done) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (done || progress.length > 0) resolve();
          });
          wake = undefined;
          const update = progress.shift();
          if (update !== undefined && !done) yield { text: kit.render(update), outcome: update, preliminary: true };
        }
        const outcome = await call;
        yield { text: kit.render(outcome), outcome, preliminary: false };
      },
      toModelOutput: ({ output }: { output: TerminalToolResult }) => ({ type: "text" as const, value: output.text }),
    } as never) as Tool<any, TerminalToolResult>;
  }
  Object.defineProperty(set, TOOLKIT, { value: kit, enumerable: false });
  return set as TerminalToolSet;
}

const TOOLKIT = Symbol.for("agent-tty.toolkit");

/** The {@link TerminalToolkit} behind a tool set made by {@link terminalTools}. */
export function terminalToolkitOf(tools: TerminalToolSet): TerminalToolkit {
  const kit = (tools as unknown as Record<symbol, unknown>)[TOOLKIT];
  if (!(kit instanceof TerminalToolkit)) throw new TypeError("Expected a tool set made by terminalTools() from agent-tty/ai");
  return kit;
}

/** Ends the sessions a tool set made by {@link terminalTools} opened. */
export async function closeTerminalTools(tools: TerminalToolSet): Promise<void> {
  await terminalToolkitOf(tools).close();
}

export { terminalSandbox } from "./ai-sandbox.js";
export type { TerminalSandboxOptions } from "./ai-sandbox.js";
