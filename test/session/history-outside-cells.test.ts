import { describe, expect, it } from "vitest";
import { spawnBash, spawnSession } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";

/** Waits until the transcript's last `lines` lines are `expected` (quoting the last seen on timeout). */
function historyBecomes(sh: { history(n: number): string }, lines: number, expected: string): Promise<true> {
  return waitFor(() => sh.history(lines) === expected, {
    message: `history(${lines}) to be ${JSON.stringify(expected)}; last: ${JSON.stringify(sh.history(lines))}`,
  });
}

describe("history(n) is the transcript a person saw, commands typed outside cells included", () => {
  it("bash: write, type + press, and up + enter recalling a cell's command appear with their output, in order with the cells", async () => {
    const sh = await spawnBash();
    await sh.run("echo cell-$((1+1))");
    sh.write("echo written-$((2+3))\r");
    await historyBecomes(sh, 4, "echo cell-$((1+1))\ncell-2\necho written-$((2+3))\nwritten-5");
    sh.type("echo typed-$((3*3))");
    sh.press("enter");
    await historyBecomes(sh, 2, "echo typed-$((3*3))\ntyped-9");
    // Up three times recalls the cell's own command (bash history): the line shows it, not the arrow keys.
    sh.press("up", "up", "up", "enter");
    await historyBecomes(sh, 2, "echo cell-$((1+1))\ncell-2");
    const after = await sh.run("echo cell-after");
    expect(after.output).toBe("cell-after");
    expect(sh.history(100)).toBe(
      [
        "echo cell-$((1+1))",
        "cell-2",
        "echo written-$((2+3))",
        "written-5",
        "echo typed-$((3*3))",
        "typed-9",
        "echo cell-$((1+1))",
        "cell-2",
        "echo cell-after",
        "cell-after",
      ].join("\n"),
    );
    expect(sh.history(100)).not.toMatch(/bash-[\d.]+\$|\x1b/);
  });

  it("bash: a multi-line command typed outside a cell runs whole (not cancelled as an incomplete cell) and shows its lines", async () => {
    const sh = await spawnBash();
    await sh.run("true");
    sh.write("for i in 1 2; do\r");
    await waitFor(() => /^>$/m.test(sh.screen()), { message: "the continuation prompt" });
    sh.write("echo loop-$i\r");
    sh.write("done\r");
    await historyBecomes(sh, 5, "for i in 1 2; do\n> echo loop-$i\n> done\nloop-1\nloop-2");
    expect((await sh.run("echo next")).output).toBe("next");
  });

  it("bash: a typed command that starts nothing (a syntax error) shows with the error a person saw", async () => {
    const sh = await spawnBash();
    await sh.run("true");
    sh.write("done\r");
    await historyBecomes(sh, 2, "done\nbash: syntax error near unexpected token `done'");
    const next = await sh.run("echo after-error");
    expect(next.output).toBe("after-error");
    expect(sh.history(4)).toBe("done\nbash: syntax error near unexpected token `done'\necho after-error\nafter-error");
  });

  it("python3: lines typed at >>> show without the prompt; a block typed outside a cell is not cancelled", async () => {
    const sh = await spawnSession({ command: "python3" });
    await sh.run("x = 41");
    sh.write("print(x + 1)\r");
    await historyBecomes(sh, 4, "x = 41\nprint(x + 1)\n42");
    sh.press("up", "enter");
    await historyBecomes(sh, 4, "print(x + 1)\n42\nprint(x + 1)\n42");
    // Typed once the prompt shows, as a person does (typed ahead, the prompt and the echo come as one line).
    await waitFor(() => /^>>>$/m.test(sh.screen()), { message: "the prompt" });
    sh.write("for i in range(2):\r");
    await waitFor(() => /^\.\.\.$/m.test(sh.screen()), { message: "the continuation prompt" });
    sh.write("  print('row', i)\r");
    // The empty line too once its prompt shows: typed ahead, the terminal can echo it before the prompt (a blank line).
    await waitFor(() => /^\.\.\. {3}print\('row', i\)\n\.\.\.$/m.test(sh.screen()), { message: "the next continuation prompt" });
    sh.write("\r");
    await waitFor(() => (sh.history(2) === "row 0\nrow 1" ? true : undefined), {
      message: `the block's output; last: ${JSON.stringify(sh.history(6))}`,
    });
    expect(sh.history(6)).toBe("42\nfor i in range(2):\n...   print('row', i)\n... \nrow 0\nrow 1");
    expect((await sh.run("print('cell-two')")).output).toBe("cell-two");
    expect(sh.history(100)).not.toContain(">>>");
  });
});
