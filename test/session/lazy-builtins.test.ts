import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

// A fresh driver process: imports agent-tty, runs cells in bash with shell integration, then lists
// the built-in modules Node loaded (before closing: a close may need more). Node's own file streams
// load readline's internals (internal/readline/*): only the public modules are looked for.
const DRIVER = `
import { Session, detectors } from "agent-tty";
const session = await Session.spawn({ command: "bash", args: ["--norc", "--noprofile"], detector: detectors.shellIntegration() });
try {
  const outputs = [];
  for (let cell = 0; cell < 3; cell++) outputs.push((await session.run("echo hi-" + cell)).output);
  const loaded = process.moduleLoadList.filter((name) => /^NativeModule (child_process|readline|dgram)$/.test(name));
  console.log(JSON.stringify({ outputs, loaded }));
} finally {
  await session.close();
}
`;

describe("built-in modules loaded on first use", () => {
  it("a driver running shell-integration cells never loads node:child_process or node:readline", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", DRIVER], { cwd: root, timeout: 60_000 });
    const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { outputs: string[]; loaded: string[] };
    expect(report.outputs).toEqual(["hi-0", "hi-1", "hi-2"]);
    expect(report.loaded).toEqual([]);
  });
});
