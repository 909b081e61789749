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
  return readFileSync(log, "utf8").split("\n").filter((line) => line !== "");
}

test("importing agent-tty loads no agent framework and no zod", () => {
  const urls = importsOf("agent-tty");
  expect(urls.some((url) => url.includes("/dist/index.js"))).toBe(true);
  expect(urls.filter((url) => FRAMEWORKS.test(url))).toEqual([]);
});

test("the import log sees a framework when one is loaded (the check can fail)", () => {
  const urls = importsOf("agent-tty/tools");
  expect(urls.some((url) => /\/node_modules\/zod\//.test(url))).toBe(true);
});
