// A LangChain.js agent (createAgent) with persistent terminals (agent-tty/langchain).
//
//   npm run example:langchain                       offline: langchain's fakeModel drives python3
//   OPENAI_API_KEY=… npm run example:langchain      a real model (needs @langchain/openai installed; AGENT_MODEL to pick one)
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createAgent, fakeModel } from "langchain";
import { SessionManager } from "agent-tty";
import { terminalTools } from "agent-tty/langchain";

function scriptedModel() {
  const model = fakeModel()
    .respondWithTools([{ name: "terminal_open", args: { command: "python3", name: "py" } }])
    .respondWithTools([{ name: "terminal_run", args: { session: "py", code: "def greet(name):\n    return 'Hello, ' + name + '!'" } }])
    .respondWithTools([{ name: "terminal_run", args: { session: "py", code: "name = input('What is your name? ')" } }])
    .respondWithTools([{ name: "terminal_send", args: { session: "py", text: "Ada\n" } }])
    .respondWithTools([{ name: "terminal_run", args: { session: "py", code: "print(greet(name))" } }]);
  model.respond((messages) => {
    const last = messages.filter((message) => ToolMessage.isInstance(message)).at(-1);
    return new AIMessage(`Python says: ${String(last.content).split("\n").slice(1).join(" ")}`);
  });
  return model;
}

const model = process.env.OPENAI_API_KEY ? (process.env.AGENT_MODEL ?? "openai:gpt-4.1-mini") : scriptedModel();
const manager = new SessionManager();
try {
  const agent = createAgent({ model, tools: terminalTools({ manager, maxSessions: 2 }) });
  const state = await agent.invoke({
    messages: [
      {
        role: "user",
        content: "In a python3 terminal, define greet(name), ask for a name with input(), answer 'Ada', and print greet(name).",
      },
    ],
  });
  for (const message of state.messages) {
    if (ToolMessage.isInstance(message)) console.log(`── ${message.name}\n${message.content}`);
  }
  console.log(`── answer\n${state.messages.at(-1).content}`);
} finally {
  await manager.closeAll();
}
