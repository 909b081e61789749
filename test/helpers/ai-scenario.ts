// The scripted python3 scenario shared by the ai 7 and ai 6 end-to-end tests.
import { expect } from "vitest";

/** The tool calls the scripted model makes, in order; then it answers in text. */
export const SCRIPT = [
  { toolName: "terminal_open", input: { command: "python3", name: "py" } },
  { toolName: "terminal_run", input: { session: "py", code: "def greet(name):\n    return 'Hello, ' + name + '!'" } },
  { toolName: "terminal_run", input: { session: "py", code: "name = input('What is your name? ')" } },
  { toolName: "terminal_send", input: { session: "py", text: "Ada\n" } },
  { toolName: "terminal_run", input: { session: "py", code: "print(greet(name))" } },
] as const;

/** Text of the tool results in a prompt (what the model read), oldest first. */
export function toolResultsIn(prompt: ReadonlyArray<{ role: string; content: unknown }>): string[] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role !== "tool" || !Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type: string; output?: { type: string; value: unknown } }>) {
      if (part.type === "tool-result" && part.output !== undefined)
        texts.push(part.output.type === "text" ? String(part.output.value) : JSON.stringify(part.output.value));
    }
  }
  return texts;
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A `doGenerate` that follows {@link SCRIPT} step by step, recording what the model read. */
export function scriptedGenerate(read: string[][]) {
  let step = 0;
  return async (options: { prompt: ReadonlyArray<{ role: string; content: unknown }> }) => {
    read.push(toolResultsIn(options.prompt));
    const call = SCRIPT[step];
    step += 1;
    if (call !== undefined) {
      return {
        content: [{ type: "tool-call" as const, toolCallId: `call-${step}`, toolName: call.toolName, input: JSON.stringify(call.input) }],
        finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
        usage,
        warnings: [],
      };
    }
    const last = toolResultsIn(options.prompt).at(-1) ?? "";
    return {
      content: [{ type: "text" as const, text: `The terminal said: ${last.split("\n").slice(1).join(" ")}` }],
      finishReason: { unified: "stop" as const, raw: "stop" },
      usage,
      warnings: [],
    };
  };
}

/** What every framework's run of the scenario must show: the model read each rendered result. */
export function expectScenarioRead(lastRead: readonly string[], finalText: string): void {
  expect(lastRead).toHaveLength(SCRIPT.length);
  expect(lastRead[0]).toMatch(/^Opened session "py": "python3"/);
  expect(lastRead[1]).toMatch(/^status: done \| exit: n\/a \|/);
  expect(lastRead[2]).toMatch(/^status: awaiting_input \|/);
  expect(lastRead[2]).toContain('it asked: "What is your name?"');
  expect(lastRead[2]).toContain("terminal_send");
  expect(lastRead[3]).toMatch(/^status: done \|/);
  expect(lastRead[3]).toContain("What is your name? Ada");
  expect(lastRead[4]).toMatch(/^status: done \| exit: n\/a \| cwd: n\/a \| \S+ \| session: py \| cell: \w+\nHello, Ada!$/);
  expect(finalText).toBe("The terminal said: Hello, Ada!");
}
