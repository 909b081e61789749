import { generateText, stepCountIs, streamText } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, test } from "vitest";
import { SessionManager } from "../../src/index.js";
import { closeTerminalTools, terminalTools, terminalToolkitOf, type TerminalToolResult } from "../../src/adapters/ai.js";
import { trackManager } from "../helpers/sessions.js";
import { expectScenarioRead, scriptedGenerate } from "../helpers/ai-scenario.js";

let manager: SessionManager;
afterEach(() => manager?.closeAll());

describe("agent-tty/ai with ai 7 (MockLanguageModelV4)", () => {
  test("generateText drives python3 through open, run, awaiting_input, send, run, then answers", async () => {
    manager = trackManager(new SessionManager());
    const read: string[][] = [];
    const model = new MockLanguageModelV4({ doGenerate: scriptedGenerate(read) as never });
    const result = await generateText({
      model,
      tools: terminalTools({ manager }),
      stopWhen: stepCountIs(10),
      prompt: "Greet Ada in python",
    });
    expectScenarioRead(read.at(-1) ?? [], result.text);
    expect(result.steps).toHaveLength(6);
    const awaiting = result.steps[2]?.toolResults[0]?.output as TerminalToolResult;
    expect(awaiting.outcome).toMatchObject({ kind: "cell", result: { status: "awaiting_input" } });
  });

  test("the tool call's abort signal interrupts the running cell", async () => {
    manager = trackManager(new SessionManager());
    const tools = terminalTools({ manager, defaults: { args: ["--norc", "--noprofile"] } });
    await terminalToolkitOf(tools).execute("terminal_open", { name: "sh" });
    const controller = new AbortController();
    const results: TerminalToolResult[] = [];
    const execute = tools.terminal_run.execute!;
    const iterate = (async () => {
      const stream = execute({ session: "sh", code: "echo started; sleep 30" }, {
        toolCallId: "t1",
        messages: [],
        abortSignal: controller.signal,
      } as never) as AsyncIterable<TerminalToolResult>;
      for await (const item of stream) {
        results.push(item);
        if (item.preliminary && item.text.includes("started")) controller.abort();
      }
    })();
    await iterate;
    const final = results.at(-1);
    expect(results.some((item) => item.preliminary)).toBe(true);
    expect(final?.preliminary).toBe(false);
    expect(final?.outcome).toMatchObject({ kind: "cell", result: { status: "interrupted" } });
    expect(manager.get("sh")?.state).toBe("idle");
  });

  test("streamText streams preliminary results of a running cell before the final one", async () => {
    const tools = terminalTools({ defaults: { args: ["--norc", "--noprofile"] } });
    try {
      await terminalToolkitOf(tools).execute("terminal_open", { name: "sh" });
      let step = 0;
      const model = new MockLanguageModelV4({
        doStream: (async () => {
          step += 1;
          const { convertArrayToReadableStream } = await import("ai/test");
          const finish = (reason: "tool-calls" | "stop") => ({
            type: "finish" as const,
            finishReason: { unified: reason, raw: reason },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 1, text: 1, reasoning: 0 },
            },
          });
          const parts =
            step === 1
              ? [
                  {
                    type: "tool-call" as const,
                    toolCallId: "c1",
                    toolName: "terminal_run",
                    input: JSON.stringify({ session: "sh", code: "echo one; sleep 0.8; echo two" }),
                  },
                  finish("tool-calls"),
                ]
              : [
                  { type: "text-start" as const, id: "t" },
                  { type: "text-delta" as const, id: "t", delta: "ok" },
                  { type: "text-end" as const, id: "t" },
                  finish("stop"),
                ];
          return { stream: convertArrayToReadableStream(parts as never[]) };
        }) as never,
      });
      const result = streamText({ model, tools, stopWhen: stepCountIs(3), prompt: "count" });
      const seen: Array<{ preliminary: boolean; text: string }> = [];
      for await (const part of result.fullStream) {
        if (part.type === "tool-result")
          seen.push({ preliminary: part.preliminary === true, text: (part.output as TerminalToolResult).text });
      }
      expect(
        seen.filter((item) => item.preliminary).some((item) => item.text.includes("status: running") && item.text.includes("one")),
      ).toBe(true);
      expect(seen.filter((item) => !item.preliminary).map((item) => item.text.split("\n").slice(1).join("\n"))).toEqual(["one\ntwo"]);
    } finally {
      await closeTerminalTools(tools);
    }
  });

  test("every tool has a description, a zod input schema and toModelOutput; an invalid call is text for the model", async () => {
    const tools = terminalTools();
    try {
      expect(Object.keys(tools)).toEqual([
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
      for (const item of Object.values(tools)) {
        expect(item.description?.length).toBeGreaterThan(40);
        expect(typeof item.toModelOutput).toBe("function");
      }
      let last: TerminalToolResult | undefined;
      for await (const item of tools.terminal_run.execute!({ session: "none", code: "ls" }, {
        toolCallId: "x",
        messages: [],
      } as never) as AsyncIterable<TerminalToolResult>)
        last = item;
      const model = await tools.terminal_run.toModelOutput!({ toolCallId: "x", input: {}, output: last! } as never);
      expect(model).toEqual({
        type: "text",
        value: 'Error: there is no open session named "none". No session is open; start one with terminal_open.',
      });
    } finally {
      await closeTerminalTools(tools);
    }
  });
});
