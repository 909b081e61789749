import { describe, expect, it } from "vitest";
import { spawnSession } from "../helpers/sessions.js";
import { INCOMPLETE_REPL_CELL_MESSAGE } from "../../src/detect/prompt.js";

const python = () => spawnSession({ command: "python3", args: ["-q"] });

describe("python3 REPL with auto (prompt detector)", () => {
  it('"auto" picks the prompt detector and echoes expression values', async () => {
    const py = await python();
    const r = await py.run("1 + 2");
    expect(r.status).toBe("done");
    expect(r.decidedBy).toBe("prompt");
    expect(r.output).toBe("3");
    expect(r.exitCode).toBeNull();
    const s = await py.run("'a' * 3");
    expect(s.output).toBe("'aaa'");
  });

  it("print output has no echo and no prompt", async () => {
    const py = await python();
    const r = await py.run("print('hello from python')");
    expect(r.output).toBe("hello from python");
    expect(r.output).not.toContain(">>>");
  });

  it("keeps state between cells", async () => {
    const py = await python();
    const first = await py.run("x = 41");
    expect(first.output).toBe("");
    const r = await py.run("x + 1");
    expect(r.output).toBe("42");
  });

  it("runs a multi-line def and calls it in a later cell", async () => {
    const py = await python();
    const def = await py.run("def square(n):\n    result = n * n\n    return result");
    expect(def.status).toBe("done");
    expect(def.output).toBe("");
    const r = await py.run("print(square(12))");
    expect(r.output).toBe("144");
  });

  it("runs a for block", async () => {
    const py = await python();
    const r = await py.run("for i in range(3):\n    print('item', i)");
    expect(r.output).toBe("item 0\nitem 1\nitem 2");
    expect(r.output).not.toContain("...");
  });

  it("runs a class block with methods", async () => {
    const py = await python();
    const r = await py.run(
      "class Counter:\n    def __init__(self):\n        self.n = 0\n\n    def bump(self):\n        self.n += 1\n        return self.n\n",
    );
    expect(r.status).toBe("done");
    expect(r.output).toBe("");
    const use = await py.run("c = Counter()\nc.bump()\nc.bump()");
    expect(use.output).toBe("1\n2");
  });

  it("a block followed by top-level code runs both", async () => {
    const py = await python();
    const r = await py.run("total = 0\nfor i in range(5):\n    total += i\nprint('total', total)");
    expect(r.status).toBe("done");
    expect(r.output).toBe("total 10");
  });

  it("a block without a trailing blank line ends the cell", async () => {
    const py = await python();
    const r = await py.run("if True:\n    print('inside')", { timeoutMs: 5_000 });
    expect(r.status).toBe("done");
    expect(r.output).toBe("inside");
  });

  it("a block with if/else continuations runs as one statement", async () => {
    const py = await python();
    const r = await py.run("for i in range(4):\n    if i % 2:\n        print('odd', i)\n    else:\n        print('even', i)");
    expect(r.output).toBe("even 0\nodd 1\neven 2\nodd 3");
  });

  it("a traceback is the cell's output and the session stays usable", async () => {
    const py = await python();
    const r = await py.run("1 / 0");
    expect(r.status).toBe("done");
    expect(r.output).toContain("Traceback (most recent call last):");
    expect(r.output.trimEnd().split("\n").at(-1)).toBe("ZeroDivisionError: division by zero");
    const raise = await py.run("def boom():\n    raise ValueError('bad value')\n\nboom()");
    expect(raise.output).toContain("ValueError: bad value");
    const next = await py.run("print('still alive')");
    expect(next.output).toBe("still alive");
  });

  it("expression values inside a multi-statement cell are echoed as in the REPL", async () => {
    const py = await python();
    const r = await py.run("a = 5\na * 2\nprint('p')\n[a, a]");
    expect(r.output).toBe("10\np\n[5, 5]");
  });

  it("exit() mid-cell settles the cell exited with the exit code", async () => {
    const py = await python();
    const r = await py.run("print('bye'); import sys; sys.exit(3)");
    expect(r.status).toBe("exited");
    expect(r.exitCode).toBe(3);
    expect(r.output).toContain("bye");
    expect(py.exitCode).toBe(3);
    expect(py.state).toBe("exited");
  });

  it("an incomplete cell (open bracket, open triple-quoted string) is cancelled at once with a note; the next cell runs", async () => {
    const py = await spawnSession({ command: "python3", args: ["-q"], timeoutMs: 15_000 });
    await py.run("x = 5");
    for (const code of ["print((x,", 'text = """open', "values = [1,\n  2,"]) {
      const r = await py.run(code);
      // A cell left waiting for the rest would end as "timeout"; Ctrl-C's KeyboardInterrupt is not output.
      expect(r, code).toMatchObject({ status: "done", output: INCOMPLETE_REPL_CELL_MESSAGE });
      expect((await py.run("print(x * 2)")).output, code).toBe("10");
    }
    // Lines before the incomplete one ran, and their output is kept.
    const partial = await py.run("print('ran')\nprint((1,");
    expect(partial.output).toBe(`ran\n${INCOMPLETE_REPL_CELL_MESSAGE}`);
    expect((await py.run("x")).output).toBe("5");
    // A block header alone is closed by the blank line typed after a block: python's own error, at once.
    const header = await py.run("if 1:");
    expect(header.status).toBe("done");
    expect(header.output).toContain("IndentationError");
    expect((await py.run("x")).output).toBe("5");
  });
});
