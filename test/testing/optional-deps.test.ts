import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { root, scratch } from "../helpers/child-runs.js";

const hooks = join(root, "test/tools/fixtures/record-imports.mjs");
const TEST_FRAMEWORKS = /\/node_modules\/(vitest|@vitest|jest|@jest|expect|jest-circus)\//;

/** The module URLs a fresh node process resolves while importing `specifier` from the package root. */
function importsOf(specifier: string): string[] {
  const log = join(scratch("agent-tty-imports-"), "imports.log");
  try {
    execFileSync(process.execPath, ["--import", hooks, "--input-type=module", "-e", `await import(${JSON.stringify(specifier)});`], {
      cwd: root,
      env: { ...process.env, AGENT_TTY_IMPORT_LOG: log },
      stdio: "pipe",
    });
  } catch {
    // agent-tty/jest and agent-tty/vitest refuse to run outside their runner, after resolving it.
  }
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

test("importing agent-tty loads neither Vitest nor Jest (nor the testing helpers)", () => {
  const urls = importsOf("agent-tty");
  expect(urls.some((url) => url.includes("/dist/index.js"))).toBe(true);
  expect(urls.filter((url) => TEST_FRAMEWORKS.test(url) || url.includes("/dist/testing/"))).toEqual([]);
});

test("the log sees a test framework when one is loaded: agent-tty/jest and agent-tty/vitest load theirs", () => {
  expect(importsOf("agent-tty/jest").some((url) => /\/node_modules\/@jest\/globals\//.test(url))).toBe(true);
  expect(importsOf("agent-tty/vitest").some((url) => /\/node_modules\/vitest\//.test(url))).toBe(true);
});
