import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { terminalSandbox } from "../../src/adapters/ai.js";
import { spawnBash } from "../helpers/sessions.js";

const dir = mkdtempSync(join(tmpdir(), "agent-tty-sandbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
  return text;
}

describe("terminalSandbox: an ai 7 experimental_sandbox over a bash session", () => {
  test("run: exit code and merged output; state persists between commands without workingDirectory/env", async () => {
    const sandbox = terminalSandbox(await spawnBash({ cwd: dir }), { baseDirectory: dir });
    expect(await sandbox.run({ command: "echo out; echo err >&2; exit_code() { return 3; }; exit_code" })).toEqual({
      exitCode: 3,
      stdout: "out\nerr",
      stderr: "",
    });
    await sandbox.run({ command: "export GREETING=hi; mkdir -p sub && cd sub" });
    expect(await sandbox.run({ command: 'echo "$GREETING from $PWD"' })).toMatchObject({ exitCode: 0, stdout: `hi from ${dir}/sub` });
  });

  test("run with workingDirectory and env runs in a subshell that leaves the shell as it was", async () => {
    const sandbox = terminalSandbox(await spawnBash({ cwd: dir }), { baseDirectory: dir });
    const result = await sandbox.run({ command: 'echo "$WHO in $PWD" # a comment', workingDirectory: "/tmp", env: { WHO: "it's me" } });
    expect(result).toEqual({ exitCode: 0, stdout: "it's me in /tmp", stderr: "" });
    expect((await sandbox.run({ command: 'echo "[$WHO] $PWD"' })).stdout).toBe(`[] ${dir}`);
  });

  test("spawn streams output, takes stdin, and wait() gives the exit code", async () => {
    const sandbox = terminalSandbox(await spawnBash({ cwd: dir }), { baseDirectory: dir });
    const proc = await sandbox.spawn({ command: "read line; echo got:$line; exit 0", stdin: true });
    const writer = proc.stdin.getWriter();
    await writer.write(new TextEncoder().encode("hello\n"));
    const out = collect(proc.stdout);
    expect(await proc.wait()).toEqual({ exitCode: 0 });
    expect(await out).toContain("got:hello");
  });

  test("files resolve against the base directory", async () => {
    const sandbox = terminalSandbox(await spawnBash({ cwd: dir }), { baseDirectory: dir });
    await sandbox.writeTextFile({ path: "a/b.txt", content: "one\ntwo\nthree" });
    expect(readFileSync(join(dir, "a/b.txt"), "utf8")).toBe("one\ntwo\nthree");
    expect(await sandbox.readTextFile({ path: "a/b.txt", startLine: 2, endLine: 3 })).toBe("two\nthree");
    expect(await sandbox.stat({ path: "a" })).toMatchObject({ type: "directory" });
    expect(await sandbox.listDirectory({ path: "a" })).toEqual([{ name: "b.txt", type: "file" }]);
    expect((await sandbox.run({ command: "cat a/b.txt | wc -l" })).stdout.trim()).toBe("2");
    expect(await sandbox.deleteFile({ path: "a/b.txt" })).toBe(true);
    expect(await sandbox.readTextFile({ path: "a/b.txt" })).toBeNull();
    expect(await sandbox.deleteFile({ path: "a/b.txt" })).toBe(false);
  });
});
