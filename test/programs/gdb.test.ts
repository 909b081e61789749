import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { spawnSession } from "../helpers/sessions.js";

const SOURCE = `#include <stdio.h>

static int add(int a, int b) {
  int sum = a + b;
  return sum;
}

int main(void) {
  int counter = 41;
  counter = counter + 1;
  int total = add(counter, 8);
  printf("total=%d\\n", total);
  return 0;
}
`;

let dir: string;
let program: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-tty-gdb-"));
  writeFileSync(join(dir, "prog.c"), SOURCE);
  program = join(dir, "prog");
  execFileSync("gcc", ["-g", "-O0", "-o", program, join(dir, "prog.c")]);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const gdb = (detector: "auto" | ReturnType<typeof detectors.prompt>) =>
  spawnSession({ command: "gdb", args: ["-q", "-nx", program], cwd: dir, detector, timeoutMs: 15_000, readyTimeoutMs: 15_000 });

describe("gdb on a small C program", () => {
  it("break, run, print, next and bt with detectors.prompt()", async () => {
    const g = await gdb(detectors.prompt("(gdb) "));
    const brk = await g.run("break add");
    expect(brk.status).toBe("done");
    expect(brk.decidedBy).toBe("prompt");
    expect(brk.output).toMatch(/^Breakpoint 1 at 0x[0-9a-f]+: file .*prog\.c, line 4\.$/);

    const run = await g.run("run");
    expect(run.status).toBe("done");
    expect(run.output).toMatch(/Breakpoint 1, add \(a=42, b=8\) at .*prog\.c:4/);
    expect(run.output).not.toContain("(gdb)");

    const printA = await g.run("print a");
    expect(printA.output).toBe("$1 = 42");

    const next = await g.run("next");
    expect(next.output).toMatch(/^5\s+return sum;$/);

    const sum = await g.run("print sum");
    expect(sum.output).toBe("$2 = 50");

    const bt = await g.run("bt");
    const frames = bt.output.split("\n");
    expect(frames).toHaveLength(2);
    expect(frames[0]).toMatch(/^#0\s+add \(a=42, b=8\) at .*prog\.c:5$/);
    expect(frames[1]).toMatch(/^#1\s+0x[0-9a-f]+ in main \(\) at .*prog\.c:11$/);

    const cont = await g.run("continue");
    expect(cont.output).toContain("total=50");
    expect(cont.output).toMatch(/exited normally/);
  });

  it('"auto" picks the prompt detector for gdb', async () => {
    const g = await gdb("auto");
    await g.run("break main");
    const run = await g.run("run");
    expect(run.decidedBy).toBe("prompt");
    expect(run.output).toMatch(/Breakpoint 1, main \(\) at .*prog\.c:9/);
    const next = await g.run("next");
    expect(next.output).toMatch(/^10\s+counter = counter \+ 1;$/);
    const counter = await g.run("print counter");
    expect(counter.output).toBe("$1 = 41");
  });

  it("a multi-line cell runs each command after the prompt, none repeated (RegExp prompt)", async () => {
    const g = await gdb(detectors.prompt(/^\(gdb\) $/m));
    await g.run("break add\nrun");
    const r = await g.run("print a\nprint b");
    expect(r.output).toBe("$1 = 42\n$2 = 8");
  });
});
