import { describe, expect, it } from "vitest";
import { spawnSession } from "../helpers/sessions.js";
import { INCOMPLETE_REPL_CELL_MESSAGE } from "../../src/detect/prompt.js";

const nodeRepl = () => spawnSession({ command: "node", args: [] });

describe("node REPL with auto (prompt detector)", () => {
  it('"auto" picks the prompt detector and shows expression values', async () => {
    const repl = await nodeRepl();
    const r = await repl.run("1 + 41");
    expect(r.status).toBe("done");
    expect(r.decidedBy).toBe("prompt");
    expect(r.output).toBe("42");
    expect(r.output).not.toContain("\x1b");
  });

  it("console.log output comes without echo or prompt", async () => {
    const repl = await nodeRepl();
    const r = await repl.run("console.log('from node')");
    expect(r.output).toBe("from node\nundefined");
    expect(r.output).not.toContain("> ");
    expect(r.output).not.toContain("console.log");
  });

  it("keeps state between cells", async () => {
    const repl = await nodeRepl();
    await repl.run("const base = 40");
    const r = await repl.run("base + 2");
    expect(r.output).toBe("42");
  });

  it("runs a multi-line function and a loop", async () => {
    const repl = await nodeRepl();
    const def = await repl.run("function twice(n) {\n  return n * 2;\n}");
    expect(def.status).toBe("done");
    const r = await repl.run("for (let i = 0; i < 3; i++) {\n  console.log('i=' + twice(i));\n}");
    expect(r.output).toBe("i=0\ni=2\ni=4\nundefined");
  });

  it("a thrown error is the output and the session stays usable", async () => {
    const repl = await nodeRepl();
    const r = await repl.run("throw new Error('kaput')");
    expect(r.status).toBe("done");
    expect(r.output).toContain("kaput");
    const next = await repl.run("'ok'");
    expect(next.output).toBe("'ok'");
  });

  it("an incomplete cell (open brace) is cancelled at once with a note; the next cell runs", async () => {
    const repl = await spawnSession({ command: "node", args: [], timeoutMs: 15_000 });
    const r = await repl.run("function f() {");
    expect(r).toMatchObject({ status: "done", output: INCOMPLETE_REPL_CELL_MESSAGE });
    expect((await repl.run("typeof f")).output).toBe("'undefined'");
    expect((await repl.run("6 * 7")).output).toBe("42");
  });
});
