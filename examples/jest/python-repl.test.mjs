// Testing a REPL with Jest: useTerminal() closes every session in afterEach, pass or fail.
import { describe, expect, test } from "@jest/globals";
import { useTerminal } from "agent-tty/jest";

const terminal = useTerminal();

describe("python3 REPL (Jest)", () => {
  test("a function defined in one cell is called in the next", async () => {
    const py = await terminal({ command: "python3" });
    await py.run("def greet(name):\n    return f'Hello, {name}!'\n");
    expect(await py.run("print(greet('Ada'))")).toHaveOutput("Hello, Ada!");
    await expect(py).toShowOnScreen(/^>>> $/m);
  });

  test("a failing command in bash has its exit code", async () => {
    const sh = await terminal({ command: "bash", args: ["--norc", "--noprofile"] });
    expect(await sh.run("ls /no/such/dir")).toHaveExitCode(2);
    expect(await sh.run("echo done")).toHaveOutput("done");
  });
});
