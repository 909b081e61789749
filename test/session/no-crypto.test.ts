import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { randomBytes, randomFill } from "../../src/internal/random.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

// A fresh driver process: imports agent-tty, runs cells in bash with shell integration (its frame
// secret, its private start-up file, the cell ids are the random bytes a session needs), closes.
const DRIVER = `
import { Session, detectors } from "agent-tty";
const sessions = [];
for (let n = 0; n < 3; n++) sessions.push(await Session.spawn({ command: "bash", args: ["--norc", "--noprofile"], detector: detectors.shellIntegration() }));
try {
  const outputs = [];
  const ids = new Set();
  for (const session of sessions) {
    for (let cell = 0; cell < 3; cell++) {
      const result = await session.run("echo hi-" + cell);
      outputs.push(result.output);
      ids.add(result.cellId);
    }
  }
  const crypto = process.moduleLoadList.filter((name) => /crypto/.test(name));
  console.log(JSON.stringify({ outputs, ids: ids.size, crypto }));
} finally {
  await Promise.all(sessions.map((session) => session.close()));
}
`;

describe("random bytes without node:crypto", () => {
  it("a driver running shell-integration sessions never loads node:crypto, and its sessions and cells work", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", DRIVER], { cwd: root, timeout: 60_000 });
    const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { outputs: string[]; ids: number; crypto: string[] };
    expect(report.outputs).toEqual(["hi-0", "hi-1", "hi-2", "hi-0", "hi-1", "hi-2", "hi-0", "hi-1", "hi-2"]);
    expect(report.ids).toBe(9);
    expect(report.crypto).toEqual([]);
  });

  it("hands out bytes that differ from call to call, across refills of its pool", () => {
    const seen = new Set<string>();
    for (let n = 0; n < 2_000; n++) seen.add(randomBytes(12).toString("hex"));
    expect(seen.size).toBe(2_000);
    const big = randomFill(Buffer.alloc(50_000));
    // 50,000 random bytes: every byte value turns up, none more than a few hundred times.
    const counts = new Array<number>(256).fill(0);
    for (const byte of big) counts[byte] = (counts[byte] as number) + 1;
    expect(Math.min(...counts)).toBeGreaterThan(100);
    expect(Math.max(...counts)).toBeLessThan(320);
  });
});
