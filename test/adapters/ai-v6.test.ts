import { vi, describe, expect, test, afterEach } from "vitest";
// The adapter imports "ai": here that is ai 6, as in a project that has ai 6 installed.
vi.mock("ai", async () => await import("ai-v6"));
import { generateText, stepCountIs, type ToolSet } from "ai-v6";
import { MockLanguageModelV3 } from "ai-v6/test";
import { SessionManager } from "../../src/index.js";
// ai 6's ToolSet type differs from ai 7's, against which the adapter is typed: the objects are the same.
import { terminalTools } from "../../src/adapters/ai.js";
import { trackManager } from "../helpers/sessions.js";
import { expectScenarioRead, scriptedGenerate } from "../helpers/ai-scenario.js";

let manager: SessionManager;
afterEach(() => manager?.closeAll());

describe("agent-tty/ai with ai 6 (MockLanguageModelV3)", () => {
  test("the adapter really uses ai 6 here", async () => {
    const ai = await import("ai");
    const v6 = await import("ai-v6");
    expect(ai.generateText).toBe(v6.generateText);
  });

  test("generateText drives python3 through open, run, awaiting_input, send, run, then answers", async () => {
    manager = trackManager(new SessionManager());
    const read: string[][] = [];
    const model = new MockLanguageModelV3({ doGenerate: scriptedGenerate(read) as never });
    const result = await generateText({
      model,
      tools: terminalTools({ manager }) as unknown as ToolSet,
      stopWhen: stepCountIs(10),
      prompt: "Greet Ada in python",
    });
    expectScenarioRead(read.at(-1) ?? [], result.text);
    expect(result.steps).toHaveLength(6);
  });
});
