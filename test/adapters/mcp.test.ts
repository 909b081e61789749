import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, test } from "vitest";
import { createMcpServer } from "../../src/adapters/mcp.js";
import { isAlive } from "../helpers/sessions.js";
import { SCRIPT, expectScenarioRead } from "../helpers/ai-scenario.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connectInMemory(options: Parameters<typeof createMcpServer>[0] = {}): Promise<Client> {
  const server = createMcpServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test-host", version: "1.0.0" });
  await client.connect(clientSide);
  cleanups.push(() => server.close());
  cleanups.push(() => client.close());
  return client;
}

type ToolResult = { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
const text = (result: ToolResult): string => result.content.map((part) => part.text ?? "").join("");

async function runScenario(client: Client): Promise<{ read: string[]; results: ToolResult[] }> {
  const read: string[] = [];
  const results: ToolResult[] = [];
  for (const call of SCRIPT) {
    const result = (await client.callTool({ name: call.toolName, arguments: call.input })) as ToolResult;
    results.push(result);
    read.push(text(result));
  }
  return { read, results };
}

describe("agent-tty/mcp over InMemoryTransport", () => {
  test("a client drives python3 through open, run, awaiting_input, send, run; structuredContent carries the CellResult", async () => {
    const client = await connectInMemory();
    const { read, results } = await runScenario(client);
    const last = read.at(-1) ?? "";
    expectScenarioRead(read, `The terminal said: ${last.split("\n").slice(1).join(" ")}`);
    expect(results[2]?.structuredContent).toMatchObject({
      kind: "cell",
      session: "py",
      result: { status: "awaiting_input", output: "What is your name? " },
    });
    expect(results[4]?.structuredContent).toMatchObject({
      kind: "cell",
      result: { status: "done", output: "Hello, Ada!", exitCode: null },
    });
    expect(results.every((result) => result.isError !== true)).toBe(true);
  });

  test("tools are listed with descriptions, input schemas and annotations", async () => {
    const client = await connectInMemory();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((item) => [item.name, item]));
    expect(Object.keys(byName)).toEqual([
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
    expect(byName["terminal_screen"]?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName["terminal_list"]?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName["terminal_close"]?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(byName["terminal_run"]?.inputSchema).toMatchObject({ type: "object", required: ["session", "code"] });
    expect(
      (byName["terminal_run"]?.inputSchema.properties as Record<string, { description?: string }>)["timeoutMs"]?.description,
    ).toContain("NOT stopped");
  });

  test("errors are tool results with isError and a sentence, not protocol errors", async () => {
    const client = await connectInMemory({ beforeRun: (_session, code) => (code.includes("shutdown") ? "no shutdowns" : undefined) });
    const unknown = (await client.callTool({ name: "terminal_run", arguments: { session: "ghost", code: "ls" } })) as ToolResult;
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toBe('Error: there is no open session named "ghost". No session is open; start one with terminal_open.');
    await client.callTool({ name: "terminal_open", arguments: { name: "sh", args: ["--norc", "--noprofile"] } });
    const refused = (await client.callTool({ name: "terminal_run", arguments: { session: "sh", code: "shutdown now" } })) as ToolResult;
    expect(refused).toMatchObject({ isError: true, structuredContent: { kind: "error", code: "ERR_REFUSED" } });
  });

  test("each session's screen and history are resources", async () => {
    const client = await connectInMemory();
    await client.callTool({ name: "terminal_open", arguments: { name: "sh", args: ["--norc", "--noprofile"] } });
    await client.callTool({ name: "terminal_run", arguments: { session: "sh", code: "echo resource-check" } });
    const { resources } = await client.listResources();
    expect(resources.map((item) => item.uri)).toEqual(["terminal://sh/screen", "terminal://sh/history"]);
    const screen = await client.readResource({ uri: "terminal://sh/screen" });
    expect(screen.contents[0]).toMatchObject({ mimeType: "text/plain", text: expect.stringContaining("resource-check") });
    const history = await client.readResource({ uri: "terminal://sh/history" });
    expect(history.contents[0]).toMatchObject({ text: expect.stringContaining("echo resource-check") });
  });

  test("progress notifications carry the output so far while a cell runs", async () => {
    const client = await connectInMemory();
    await client.callTool({ name: "terminal_open", arguments: { name: "sh", args: ["--norc", "--noprofile"] } });
    const messages: string[] = [];
    const result = (await client.callTool(
      { name: "terminal_run", arguments: { session: "sh", code: "echo one; sleep 0.8; echo two" } },
      undefined,
      {
        onprogress: (progress) => messages.push(progress.message ?? ""),
      },
    )) as ToolResult;
    expect(text(result).split("\n").slice(1)).toEqual(["one", "two"]);
    expect(messages.some((message) => message.startsWith("status: running") && message.includes("one"))).toBe(true);
  });

  test("cancelling the request interrupts the cell", async () => {
    const client = await connectInMemory();
    await client.callTool({ name: "terminal_open", arguments: { name: "sh", args: ["--norc", "--noprofile"] } });
    const controller = new AbortController();
    const call = client.callTool({ name: "terminal_run", arguments: { session: "sh", code: "echo go; sleep 30" } }, undefined, {
      signal: controller.signal,
      onprogress: (progress) => {
        if ((progress.message ?? "").includes("go")) controller.abort();
      },
    });
    await expect(call).rejects.toThrow();
    // The server hears the cancellation a moment later; the cell ends "interrupted", not after 30 s.
    const waited = (await client.callTool({ name: "terminal_wait", arguments: { session: "sh", timeoutMs: 20_000 } })) as ToolResult;
    expect(waited.structuredContent).toMatchObject({ kind: "cell", result: { status: "interrupted" } });
    const next = (await client.callTool({
      name: "terminal_run",
      arguments: { session: "sh", code: "echo free", timeoutMs: 20_000 },
    })) as ToolResult;
    expect(text(next)).toMatch(/^status: done \| exit: 0 .*\nfree$/s);
  });
});

describe("agent-tty mcp on stdio, started as a host starts it", () => {
  test("the scenario runs through a real subprocess, and closing the client ends its sessions", async () => {
    const bin = fileURLToPath(new URL("../../dist/cli/agent-tty.js", import.meta.url));
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--max-sessions", "4"], stderr: "pipe" });
    const client = new Client({ name: "stdio-host", version: "1.0.0" });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const { read, results } = await runScenario(client);
    expect(read[4]).toMatch(/\nHello, Ada!$/);
    const pid = (results[0]?.structuredContent as { pid: number }).pid;
    expect(isAlive(pid)).toBe(true);
    const serverPid = transport.pid;
    await client.close();
    await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
    await expect.poll(() => serverPid !== null && isAlive(serverPid), { timeout: 10_000 }).toBe(false);
  });
});

describe("npx agent-tty mcp, as the README's host configuration starts it", () => {
  test(
    "a project that installed agent-tty serves the tools through npx, and closing the host ends everything",
    { timeout: 60_000 },
    async () => {
      const host = mkdtempSync(join(tmpdir(), "agent-tty-mcp-host-"));
      cleanups.push(async () => rmSync(host, { recursive: true, force: true }));
      writeFileSync(join(host, "package.json"), JSON.stringify({ name: "mcp-host", private: true }));
      const root = fileURLToPath(new URL("../..", import.meta.url));
      execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", root], { cwd: host, stdio: "ignore" });
      const transport = new StdioClientTransport({ command: "npx", args: ["--no-install", "agent-tty", "mcp"], cwd: host, stderr: "pipe" });
      const client = new Client({ name: "npx-host", version: "1.0.0" });
      await client.connect(transport);
      cleanups.push(() => client.close());
      const { read, results } = await runScenario(client);
      expect(read[4]).toMatch(/\nHello, Ada!$/);
      const pid = (results[0]?.structuredContent as { pid: number }).pid;
      const npxPid = transport.pid;
      await client.close();
      await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
      await expect.poll(() => npxPid !== null && isAlive(npxPid), { timeout: 10_000 }).toBe(false);
    },
  );
});
