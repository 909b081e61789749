import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const hooks = fileURLToPath(new URL("./fixtures/record-imports.mjs", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "agent-tty-imports-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const FRAMEWORKS = /\/node_modules\/(zod|ai|ai-v6|@ai-sdk|@langchain|langchain|@langchain\/langgraph|@modelcontextprotocol)\//;

/** The module URLs a fresh node process resolves while importing `specifier` from the package root. */
function importsOf(specifier: string): string[] {
  const log = join(scratch, `${specifier.replace(/\W/g, "_")}.log`);
  execFileSync(process.execPath, ["--import", hooks, "--input-type=module", "-e", `await import(${JSON.stringify(specifier)});`], {
    cwd: root,
    env: { ...process.env, AGENT_TTY_IMPORT_LOG: log },
    stdio: "pipe",
  });
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

test("importing agent-tty loads no agent framework and no zod", () => {
  const urls = importsOf("agent-tty");
  expect(urls.some((url) => url.includes("/dist/index.js"))).toBe(true);
  expect(urls.filter((url) => FRAMEWORKS.test(url))).toEqual([]);
});

test("agent-tty/tools loads zod and no agent framework (the import log sees a framework when one is loaded)", () => {
  const urls = importsOf("agent-tty/tools");
  expect(urls.some((url) => /\/node_modules\/zod\//.test(url))).toBe(true);
  expect(urls.filter((url) => FRAMEWORKS.test(url) && !/\/node_modules\/zod\//.test(url))).toEqual([]);
});

// Five fresh node processes importing the frameworks, one after another: 3-7 s in CI, over 30 s on a machine overloaded
// with test workers (seen at load 10 with 12 workers).
test("each adapter loads its own framework only", () => {
  const frameworksOf = (specifier: string) =>
    [...new Set(importsOf(specifier).flatMap((url) => (FRAMEWORKS.exec(url)?.[1] === undefined ? [] : [FRAMEWORKS.exec(url)![1]])))].sort();
  expect(frameworksOf("agent-tty/ai")).not.toContain("@modelcontextprotocol");
  expect(frameworksOf("agent-tty/ai")).toContain("ai");
  expect(frameworksOf("agent-tty/mcp")).toEqual(["@modelcontextprotocol", "zod"]);
  expect(frameworksOf("agent-tty/langchain")).toContain("@langchain");
  expect(frameworksOf("agent-tty/langchain")).not.toContain("ai");
}, 120_000);
