// An AI SDK agent with persistent terminals (agent-tty/ai).
//
//   npm run example:ai                          offline: a scripted mock model (ai/test) drives python3
//   AI_GATEWAY_API_KEY=… npm run example:ai     a real model through the Vercel AI Gateway (AGENT_MODEL to pick one)
import { generateText, stepCountIs } from "ai";
import { SessionManager } from "agent-tty";
import { terminalTools } from "agent-tty/ai";

async function scriptedModel() {
  const { MockLanguageModelV4 } = await import("ai/test");
  const calls = [
    ["terminal_open", { command: "python3", name: "py" }],
    ["terminal_run", { session: "py", code: "def greet(name):\n    return 'Hello, ' + name + '!'" }],
    ["terminal_run", { session: "py", code: "name = input('What is your name? ')" }],
    ["terminal_send", { session: "py", text: "Ada\n" }],
    ["terminal_run", { session: "py", code: "print(greet(name))" }],
  ];
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const call = calls[step++];
      if (call) {
        return {
          content: [{ type: "tool-call", toolCallId: `c${step}`, toolName: call[0], input: JSON.stringify(call[1]) }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      const last = prompt.at(-1).content.at(-1).output.value;
      return {
        content: [{ type: "text", text: `Python says: ${last.split("\n").slice(1).join(" ")}` }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

const model = process.env.AI_GATEWAY_API_KEY ? (process.env.AGENT_MODEL ?? "anthropic/claude-sonnet-4.5") : await scriptedModel();
const manager = new SessionManager();
try {
  const result = await generateText({
    model,
    tools: terminalTools({
      manager,
      maxSessions: 2,
      beforeRun: (_session, code) => (/\brm\s+-rf\b/.test(code) ? "rm -rf needs a human" : undefined),
    }),
    stopWhen: stepCountIs(12),
    prompt: "In a python3 terminal, define greet(name), ask for a name with input(), answer 'Ada', and print greet(name).",
    onStepFinish: ({ toolResults }) => {
      for (const { toolName, output } of toolResults) console.log(`── ${toolName}\n${output.text}`);
    },
  });
  console.log(`── answer\n${result.text}`);
} finally {
  await manager.closeAll();
}
