// Starts `agent-tty mcp` the way an MCP host does (stdio subprocess) and calls its tools.
//
//   npm run example:mcp
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

// A host would run `npx agent-tty mcp`; inside this repository the bin is dist/cli/agent-tty.js.
const bin = fileURLToPath(new URL("../dist/cli/agent-tty.js", import.meta.url));
const client = new Client({ name: "example-host", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--allow", "bash,python3"] }));
try {
  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);
  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    console.log(`── ${name} ${JSON.stringify(args)}\n${result.content.map((part) => part.text).join("")}`);
    return result;
  };
  await call("terminal_open", { command: "python3", name: "py" });
  await call("terminal_run", { session: "py", code: "name = input('What is your name? ')" });
  await call("terminal_send", { session: "py", text: "Ada\n" });
  const done = await call("terminal_run", { session: "py", code: "print('Hello, ' + name + '!')" });
  console.log(`── structuredContent.result.output\n${done.structuredContent.result.output}`);
  const screen = await client.readResource({ uri: "terminal://py/screen" });
  console.log(`── resource terminal://py/screen\n${screen.contents[0].text}`);
} finally {
  await client.close();
}
