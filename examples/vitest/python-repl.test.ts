// Testing a REPL: functions, tracebacks, input(), and a snapshot of the screen.
import { describe } from "vitest";
import { expect, test } from "agent-tty/vitest";

describe("python3 REPL", () => {
  test("a function defined in one cell is called in the next", async ({ terminal }) => {
    const py = await terminal({ command: "python3" });
    await py.run("def area(w, h):\n    return w * h\n");
    expect(await py.run("area(6, 7)")).toHaveOutput("42");
    expect(await py.run("[area(n, n) for n in range(4)]")).toHaveOutput("[0, 1, 4, 9]");
  });

  test("an exception prints its traceback and the REPL carries on", async ({ terminal }) => {
    const py = await terminal({ command: "python3" });
    const failed = await py.run("{}['missing']");
    expect(failed).toHaveStatus("done");
    expect(failed).toHaveOutput(/^Traceback \(most recent call last\):\n[\s\S]*KeyError: 'missing'$/);
    expect(await py.run("print('still here')")).toHaveOutput("still here");
  });

  test("input() waits for an answer; type it and the cell goes on", async ({ terminal }) => {
    const py = await terminal({ command: "python3" });
    const asked = await py.run("name = input('Your name? ')", { untilInput: true });
    expect(asked).toHaveStatus("awaiting_input");
    expect(asked).toHaveOutput("Your name? ");
    py.type("Ada\n");
    expect(await py.wait()).toHaveStatus("done");
    expect(await py.run("print(f'Hello, {name}!')")).toHaveOutput("Hello, Ada!");
  });

  test("the screen, every row of it, as an inline snapshot", async ({ terminal }) => {
    const py = await terminal({ command: "python3", cols: 30, rows: 5 });
    // Clear the screen (the banner holds the version), then print two rows.
    await py.run(String.raw`print("\x1b[2J\x1b[H" + "row one\nrow two")`);
    await expect(py).toShowOnScreen(/^>>> $/m);
    expect(py.screen()).toMatchInlineSnapshot(`
      "row one
      row two
      >>>

      "
    `);
  });
});
