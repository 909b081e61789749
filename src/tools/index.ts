/**
 * `agent-tty/tools`: the terminal operations defined once — zod input
 * schemas, executors over a `SessionManager` that return data, and the
 * renderer of what a model reads. The AI SDK, LangChain and MCP adapters
 * (and the HTTP server) are thin layers over it.
 *
 * @module
 */
export { TerminalToolkit, createTerminalToolkit } from "./toolkit.js";
export type { TerminalToolDefinition, ToolCallContext } from "./toolkit.js";
export { TOOL_DEFAULTS, normalizeToolOptions } from "./options.js";
export type { NormalizedToolOptions, TerminalToolOptions } from "./options.js";
export { cutOutput, renderOutcome, sanitizeForModel } from "./render.js";
export type { RenderOptions } from "./render.js";
export {
  TERMINAL_TOOL_NAMES,
  terminalCloseShape,
  terminalInterruptShape,
  terminalListShape,
  terminalOpenShape,
  terminalOutputShape,
  terminalRunShape,
  terminalScreenShape,
  terminalSendShape,
  terminalToolAnnotations,
  terminalToolDescriptions,
  terminalToolSchemas,
  terminalWaitShape,
} from "./schemas.js";
export type {
  TerminalOpenInput,
  TerminalOutputInput,
  TerminalRunInput,
  TerminalSendInput,
  TerminalToolAnnotations,
  TerminalToolInputs,
  TerminalToolName,
  TerminalWaitInput,
} from "./schemas.js";
export type {
  CellOutcome,
  ClosedOutcome,
  IdleInterruptOutcome,
  OpenedOutcome,
  OutputOutcome,
  RunningOutcome,
  ScreenOutcome,
  SessionSummary,
  SessionsOutcome,
  ToolErrorCode,
  ToolErrorOutcome,
  ToolOutcome,
} from "./outcome.js";
