import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, test } from "vitest";
import { SessionManager } from "../../src/index.js";
import { closeTerminalTools, terminalTools } from "../../src/adapters/langchain.js";
import type { ToolOutcome } from "../../src/tools/index.js";
import { trackManager } from "../helpers/sessions.js";

// langchain's types pull in @langchain/langgraph's augmentation of zod, which clashes (types only) with
// @hono/zod-openapi's augmentation that src/server is typed with; a specifier TypeScript cannot follow
// keeps langchain's types out of this repo's typecheck. At run time this is the plain `langchain` package.
const LANGCHAIN: string = "langchain";
const { createAgent, fakeModel } = (await import(LANGCHAIN)) as {
  createAgent: (options: { model: unknown; tools: unknown[] }) => {
    invoke(input: unknown): Promise<{ messages: Array<{ content: unknown }> }>;
  };
  fakeModel: () => {
    respondWithTools(calls: Array<{ name: string; args: Record<string, unknown>; id?: string }>): unknown;
    respond(factory: (messages: unknown[]) => unknown): unknown;
  };
};
import { SCRIPT, expectScenarioRead } from "../helpers/ai-scenario.js";

let manager: SessionManager | undefined;
afterEach(async () => {
  await manager?.closeAll();
  manager = undefined;
});

describe("agent-tty/langchain", () => {
  test("createAgent with a fake model drives python3 through open, run, awaiting_input, send, run, then answers", async () => {
    manager = trackManager(new SessionManager());
    const model = fakeModel();
    for (const [index, call] of SCRIPT.entries()) model.respondWithTools([{ name: call.toolName, args: call.input, id: `call-${index}` }]);
    model.respond((messages) => {
      const last = messages.filter((message) => ToolMessage.isInstance(message as never)).at(-1) as ToolMessage | undefined;
      return new AIMessage(
        `The terminal said: ${String(last?.content ?? "")
          .split("\n")
          .slice(1)
          .join(" ")}`,
      );
    });
    const agent = createAgent({ model, tools: terminalTools({ manager }) });
    const state = await agent.invoke({ messages: [{ role: "user", content: "Greet Ada in python" }] });
    const toolMessages = state.messages.filter((message) => ToolMessage.isInstance(message as never)) as unknown as ToolMessage[];
    const finalText = String(state.messages.at(-1)?.content);
    expectScenarioRead(
      toolMessages.map((message) => String(message.content)),
      finalText,
    );
    const artifact = toolMessages[2]?.artifact as ToolOutcome;
    expect(artifact).toMatchObject({ kind: "cell", session: "py", result: { status: "awaiting_input", output: "What is your name? " } });
  });

  test("each tool is a StructuredTool with a zod schema and content_and_artifact; errors are content, not throws", async () => {
    const tools = terminalTools();
    try {
      expect(tools.map((item) => item.name)).toEqual([
        "terminal_open",
        "terminal_run",
        "terminal_send",
        "terminal_wait",
        "terminal_screen",
        "terminal_interrupt",
        "terminal_output",
        "terminal_list",
        "terminal_close",
      ]);
      const run = tools[1]!;
      const message = (await run.invoke({
        type: "tool_call",
        id: "t1",
        name: "terminal_run",
        args: { session: "ghost", code: "ls" },
      })) as ToolMessage;
      expect(ToolMessage.isInstance(message)).toBe(true);
      expect(message.content).toBe('Error: there is no open session named "ghost". No session is open; start one with terminal_open.');
      expect(message.artifact).toMatchObject({ kind: "error", code: "ERR_UNKNOWN_SESSION" });
    } finally {
      await closeTerminalTools(tools);
    }
  });
});
