import * as pty from "node-pty";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CliSandbox, K, waitFor } from "../helpers/cli.js";

// `k attach` needs a terminal: it runs here inside a PTY, as a person's would.
let box: CliSandbox;
const terminals = new Set<pty.IPty>();

beforeAll(() => {
  box = new CliSandbox();
});
afterEach(async () => {
  for (const t of terminals) t.kill("SIGKILL");
  terminals.clear();
  await box.k("kill", "human");
});
afterAll(async () => {
  await box.cleanup();
});

function attach(session: string): { term: pty.IPty; output: () => string; exit: Promise<number> } {
  const term = pty.spawn(process.execPath, [K, "attach", session], {
    cols: 100,
    rows: 30,
    cwd: box.dir,
    env: box.env as Record<string, string>,
  });
  terminals.add(term);
  let text = "";
  term.onData((d) => (text += d));
  const exit = new Promise<number>((r) =>
    term.onExit(({ exitCode }) => {
      terminals.delete(term);
      r(exitCode);
    }),
  );
  return { term, output: () => text, exit };
}

describe("k attach", () => {
  it("relays a human's keys and the terminal raw, refuses agent cells meanwhile, and detaches on Ctrl-]", async () => {
    expect((await box.k("new", "human")).stdout).toBe("OK human\n");
    await box.k("run", "human", "echo BEFORE_ATTACH");
    const { term, output, exit } = attach("human");
    await waitFor(() => output().includes("[attached to human; Ctrl-] detaches]"), 10_000, output);
    // The current screen is repainted for the human.
    await waitFor(() => output().includes("BEFORE_ATTACH"), 10_000, output);

    const refused = await box.k("run", "-j", "human", "echo AGENT");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toEqual({ status: "error", output: expect.stringMatching(/^human attached to 'human'/) });
    expect((await box.k("fire", "human", "echo AGENT")).stdout).toMatch(/"output": "human attached to 'human'/);
    expect((await box.k("ls")).stdout).toMatch(/^human state=idle .*attached=human$/m);

    term.write("echo TYPED_$((6*7)); stty size\r");
    await waitFor(() => output().includes("TYPED_42"), 10_000, output);
    await waitFor(() => output().includes("30 100"), 10_000, output); // the session took the human's size
    expect((await box.k("screen", "human")).stdout).toContain("TYPED_42");

    term.write("\x1d");
    expect(await exit).toBe(0);
    expect(output()).toContain("[detached from human]");

    // Back to the agent, at the session's own size again.
    expect((await box.k("run", "human", "stty size")).stdout).toBe("50 200\n");
  });

  it("what a person types through k attach (a recalled command too) is in the session's history with its output, in order with cells", async () => {
    await box.k("new", "human");
    await box.k("run", "human", "echo CELL_$((1+1))");
    const { term, output, exit } = attach("human");
    await waitFor(() => output().includes("[attached to human"), 10_000, output);
    term.write("echo PERSON_$((6*7))\r");
    await waitFor(() => output().includes("PERSON_42"), 10_000, output);
    // Up twice: bash's history brings back the cell's command, which the person runs again.
    term.write("\x1b[A\x1b[A\r");
    await waitFor(() => output().split("CELL_2").length > 2, 10_000, output);

    term.write("\x1d");
    expect(await exit).toBe(0);
    await box.k("run", "human", "echo CELL_AFTER");
    const lines = (await box.k("history", "-n", "20", "human")).stdout.split("\n").filter((line) => !line.startsWith("──"));
    expect(lines.slice(-9, -1)).toEqual([
      "echo CELL_$((1+1))",
      "CELL_2",
      "echo PERSON_$((6*7))",
      "PERSON_42",
      "echo CELL_$((1+1))",
      "CELL_2",
      "echo CELL_AFTER",
      "CELL_AFTER",
    ]);
  });

  it("ends when the session ends, and needs an existing session", async () => {
    await box.k("new", "human");
    const { output, exit } = attach("human");
    await waitFor(() => output().includes("[attached to human"), 10_000, output);
    await box.k("kill", "human");
    expect(await exit).toBe(0);
    expect(output()).toContain("[session human ended]");
    const missing = attach("nobody");
    expect(await missing.exit).toBe(1);
    expect(missing.output()).toContain("ERR no session 'nobody'; use k new nobody bash");
  });
});

describe("k keys, k type, k screen, k expect", () => {
  it("answer a program waiting for input", async () => {
    await box.k("new", "human");
    const fired = JSON.parse((await box.k("fire", "human", 'read -p "Name? " n; echo "hi $n"')).stdout) as { cell_id: string };
    expect((await box.k("expect", "human", "Name\\? $", "-t", "10")).stdout).toBe("OK Name? \n");
    expect((await box.k("type", "human", "ada")).stdout).toBe("OK\n");
    expect((await box.k("keys", "human", "enter")).stdout).toBe("OK\n");
    const done = await box.km("human", fired.cell_id, "-1");
    expect(done.code).toBe(0);
    expect(JSON.parse((await box.k("poll", "human", fired.cell_id)).stdout)).toMatchObject({ status: "done", output: "Name? ada\nhi ada" });
    expect((await box.k("screen", "human")).stdout).toContain("hi ada");
    const bad = await box.k("keys", "human", "nosuchkey");
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^ERR .*nosuchkey/);
    const late = await box.k("expect", "-j", "human", "never-printed", "-t", "1");
    expect(late.code).toBe(1);
    expect(JSON.parse(late.stdout)).toMatchObject({ status: "timeout" });
  });
});
