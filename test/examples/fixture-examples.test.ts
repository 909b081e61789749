import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

test(
  "npm run example:tests: the Vitest examples (python3, sqlite3, less, vim) and the Jest example pass",
  { timeout: 180_000 },
  async () => {
    const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts[
      "example:tests"
    ];
    expect(script).toMatch(/^npm run build && /);
    // The suite already built dist; building again here would rewrite it under the other test files.
    const command = (script as string).replace(/^npm run build && /, "");
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CI: "1",
      NO_COLOR: "1",
      PATH: `${join(root, "node_modules/.bin")}${delimiter}${process.env["PATH"] ?? ""}`,
    };
    for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "NODE_OPTIONS") delete env[key];
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile("sh", ["-c", command], { cwd: root, env, timeout: 170_000, maxBuffer: 32 << 20 }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, output: `${stdout}\n${stderr}` });
      });
    });
    expect(output).toMatch(/Tests\s+9 passed \(9\)/);
    expect(output).toMatch(/Tests:\s+2 passed, 2 total/);
    expect(code, output).toBe(0);
  },
);
