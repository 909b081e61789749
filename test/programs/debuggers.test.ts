// Debuggers and unknown programs under detector "auto": each cell gets its own output, and nothing
// is typed but the cell (an empty Enter repeats the last command in pdb, gdb and node inspect).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnSession } from "../helpers/sessions.js";

const dir = mkdtempSync(join(tmpdir(), "agent-tty-debuggers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('debuggers with detector "auto"', () => {
  it("python3 -m pdb: usable at once, and `break 3` sets exactly one breakpoint", async () => {
    const script = join(dir, "s.py");
    writeFileSync(script, "a = 1\nb = a + 1\nc = b * 3\nprint('c is', c)\n");
    const pdb = await spawnSession({ command: "python3", args: ["-m", "pdb", script], readyTimeoutMs: 15_000 });
    const set = await pdb.run("break 3", { timeoutMs: 10_000 });
    expect(set).toMatchObject({ status: "done", decidedBy: "prompt" });
    expect(set.output).toMatch(/^Breakpoint 1 at .*s\.py:3$/);
    const listed = await pdb.run("break", { timeoutMs: 10_000 });
    expect(listed.output.match(/breakpoint\s+keep\s+yes/g)).toHaveLength(1);
    expect((await pdb.run("continue", { timeoutMs: 10_000 })).output).toMatch(/s\.py\(3\)<module>\(\)/);
    expect((await pdb.run("p b", { timeoutMs: 10_000 })).output).toBe("2");
  });

  it("node inspect: ready after its banner, and each cell gets its own output, not the previous one's", async () => {
    const script = join(dir, "s.js");
    writeFileSync(script, 'const a = 1;\nconst b = a + 1;\nconsole.log("b is", b);\nconst c = b * 3;\n');
    const node = await spawnSession({ command: "node", args: ["inspect", script], readyTimeoutMs: 15_000 });
    expect(node.screen()).toMatch(/Break on start in .*s\.js:1/);
    const first = await node.run("n", { timeoutMs: 10_000 });
    expect(first.output).toMatch(/^break in .*s\.js:2/);
    const second = await node.run("n", { timeoutMs: 10_000 });
    expect(second.output).toMatch(/^break in .*s\.js:3/);
    expect((await node.run("exec b", { timeoutMs: 10_000 })).output).toBe("2");
  });
});

describe('an unknown program with detector "auto"', () => {
  it("is framed by waiting for input, and receives nothing but the cells", async () => {
    const code = "n = 0\nwhile True:\n    line = input('x> ')\n    n += 1\n    print('got', n, repr(line))";
    const program = await spawnSession({ command: "python3", args: ["-c", code] });
    const first = await program.run("hello", { timeoutMs: 10_000 });
    expect(first).toMatchObject({ status: "done", decidedBy: "input-wait", output: "got 1 'hello'" });
    expect((await program.run("again", { timeoutMs: 10_000 })).output).toBe("got 2 'again'");
  });

  it("a question the program asks ends the cell too, so the caller can answer it", async () => {
    const code = "while True:\n    name = input('cmd> ')\n    answer = input('Really ' + name + '? [y/N] ')\n    print('answered', answer)";
    const program = await spawnSession({ command: "python3", args: ["-c", code] });
    const asked = await program.run("deploy", { timeoutMs: 10_000 });
    expect(asked.status).toBe("done");
    expect(program.screen()).toMatch(/Really deploy\? \[y\/N\]$/m);
    expect((await program.run("y", { timeoutMs: 10_000 })).output).toBe("answered y");
  });
});
