import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

/** Runs an example offline: no provider key, so it uses its scripted mock model. */
async function example(file: string): Promise<string> {
  const env = { ...process.env };
  delete env["AI_GATEWAY_API_KEY"];
  delete env["OPENAI_API_KEY"];
  const { stdout } = await run(process.execPath, [`examples/${file}`], { cwd: root, env, timeout: 60_000 });
  return stdout;
}

describe("the agent examples run offline", () => {
  test("examples/ai-sdk-agent.mjs: the scripted model greets Ada through python3", async () => {
    const out = await example("ai-sdk-agent.mjs");
    expect(out).toContain("── terminal_run\nstatus: awaiting_input");
    expect(out).toMatch(/── answer\nPython says: Hello, Ada!\n$/);
  });

  test("examples/langchain-agent.mjs: createAgent with the fake model greets Ada through python3", async () => {
    const out = await example("langchain-agent.mjs");
    expect(out).toContain("── terminal_run\nstatus: awaiting_input");
    expect(out).toMatch(/── answer\nPython says: Hello, Ada!\n$/);
  });

  test("examples/mcp-client.mjs: agent-tty mcp as a stdio subprocess answers tools and resources", async () => {
    const out = await example("mcp-client.mjs");
    expect(out).toContain("tools: terminal_open, terminal_run, terminal_send");
    expect(out).toContain("── structuredContent.result.output\nHello, Ada!");
    expect(out).toMatch(/── resource terminal:\/\/py\/screen\n[\s\S]*>>> print\('Hello, ' \+ name \+ '!'\)\nHello, Ada!/);
  });
});
