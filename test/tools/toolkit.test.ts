import { afterEach, describe, expect, test } from "vitest";
import { SessionManager } from "../../src/index.js";
import { createTerminalToolkit, type TerminalToolkit, type ToolOutcome } from "../../src/tools/index.js";
import { isAlive, trackManager } from "../helpers/sessions.js";

const kits: TerminalToolkit[] = [];
afterEach(async () => {
  await Promise.all(kits.splice(0).map((kit) => kit.close()));
});

function kit(options: Parameters<typeof createTerminalToolkit>[0] = {}): TerminalToolkit {
  const made = createTerminalToolkit({ defaults: { args: ["--norc", "--noprofile"] }, ...options });
  kits.push(made);
  return made;
}

function expectKind<K extends ToolOutcome["kind"]>(outcome: ToolOutcome, kind: K): Extract<ToolOutcome, { kind: K }> {
  if (outcome.kind !== kind) throw new Error(`expected a '${kind}' outcome, got ${JSON.stringify(outcome)}`);
  return outcome as Extract<ToolOutcome, { kind: K }>;
}

describe("terminal tools over real programs", () => {
  test("python3: define a function, answer input(), use both; every step is data the renderer words", async () => {
    const tools = kit();
    const opened = expectKind(await tools.execute("terminal_open", { command: "python3", name: "py" }), "opened");
    expect(opened.session).toBe("py");
    expect(isAlive(opened.pid ?? -1)).toBe(true);
    expect(
      expectKind(await tools.execute("terminal_run", { session: "py", code: "def double(x):\n    return x * 2" }), "cell").result.status,
    ).toBe("done");
    const asked = expectKind(await tools.execute("terminal_run", { session: "py", code: "name = input('Your name? ')" }), "cell");
    expect(asked.result.status).toBe("awaiting_input");
    expect(tools.render(asked)).toContain('it asked: "Your name?"');
    const answered = expectKind(await tools.execute("terminal_send", { session: "py", text: "Ada\n" }), "cell");
    expect(answered.result).toMatchObject({ status: "done", cellId: asked.result.cellId });
    const used = expectKind(await tools.execute("terminal_run", { session: "py", code: "print(double(21), name)" }), "cell");
    expect(used.result.output).toBe("42 Ada");
    expect(tools.render(used)).toMatch(/^status: done \| exit: n\/a \| cwd: n\/a \| \S+ \| session: py \| cell: \w+\n42 Ada$/);
  });

  test("bash: exit code and cwd on every cell; the default name comes from the command", async () => {
    const tools = kit();
    expectKind(await tools.execute("terminal_open", {}), "opened");
    const ran = expectKind(await tools.execute("terminal_run", { session: "bash", code: "cd /tmp && false" }), "cell");
    expect(ran.result).toMatchObject({ status: "done", exitCode: 1, cwd: "/tmp" });
    expect(tools.render(ran).split("\n")[0]).toMatch(/^status: done \| exit: 1 \| cwd: \/tmp \|/);
    expect(expectKind(await tools.execute("terminal_open", {}), "opened").session).toBe("bash-2");
  });

  test("soft wait: a long command comes back running with its output so far, the session stays held, then the rest comes", async () => {
    const tools = kit({ waitMs: 60_000 });
    await tools.execute("terminal_open", { name: "sh" });
    const first = expectKind(
      // The soft wait ends before the sleep can (it starts after the write), and leaves "started" time to come under load.
      await tools.execute("terminal_run", { session: "sh", code: "echo started; sleep 1.5; echo finished", timeoutMs: 1_000 }),
      "running",
    );
    expect(first.output).toContain("started");
    expect(tools.render(first)).toContain(`cell ${first.cellId}`);
    const busy = expectKind(await tools.execute("terminal_run", { session: "sh", code: "echo other" }), "error");
    expect(busy).toMatchObject({ code: "ERR_SESSION_BUSY", cellId: first.cellId });
    // terminal_send with nothing to type just waits for the cell's next settle point.
    const done = expectKind(await tools.execute("terminal_send", { session: "sh" }), "cell");
    expect(done.result).toMatchObject({ status: "done", cellId: first.cellId });
    expect(done.result.output).toContain("finished");
    const again = expectKind(await tools.execute("terminal_wait", { session: "sh" }), "cell");
    expect(again.result.cellId).toBe(first.cellId);
  });

  test("terminal_wait returns the running cell's result once its frame ends", async () => {
    const tools = kit();
    await tools.execute("terminal_open", { name: "sh" });
    const running = expectKind(
      await tools.execute("terminal_run", { session: "sh", code: "sleep 1; echo late", timeoutMs: 100 }),
      "running",
    );
    const done = expectKind(await tools.execute("terminal_wait", { session: "sh", timeoutMs: 20_000 }), "cell");
    expect(done.result).toMatchObject({ status: "done", exitCode: 0, output: "late", cellId: running.cellId });
  });

  test("the call's abort signal interrupts the cell and frees the session", async () => {
    const tools = kit();
    await tools.execute("terminal_open", { name: "sh" });
    const controller = new AbortController();
    const call = tools.execute("terminal_run", { session: "sh", code: "echo go; sleep 30" }, { signal: controller.signal });
    const sh = tools.manager.get("sh");
    await expect.poll(() => sh?.activity, { timeout: 10_000 }).toBe("running");
    controller.abort();
    const outcome = expectKind(await call, "cell");
    expect(outcome.result.status).toBe("interrupted");
    expect(expectKind(await tools.execute("terminal_run", { session: "sh", code: "echo free" }), "cell").result.output).toBe("free");
  });

  test("progress reports the output so far while a cell runs", async () => {
    const tools = kit();
    await tools.execute("terminal_open", { name: "sh" });
    const seen: string[] = [];
    const outcome = await tools.execute(
      "terminal_run",
      { session: "sh", code: "echo one; sleep 0.6; echo two" },
      { onProgress: (p) => seen.push(p.output) },
    );
    expect(expectKind(outcome, "cell").result.output).toBe("one\ntwo");
    expect(seen.some((text) => text.includes("one"))).toBe(true);
  });

  test("a cut result's full output stays readable with terminal_output", async () => {
    const tools = kit({ maxOutputChars: 200 });
    await tools.execute("terminal_open", { name: "sh" });
    const ran = expectKind(await tools.execute("terminal_run", { session: "sh", code: "seq 1 3000" }), "cell");
    const text = tools.render(ran);
    const offset = Number(/"offset":(\d+)/.exec(text)?.[1]);
    expect(text).not.toContain("\n1500\n");
    let all = ran.result.output.slice(0, offset);
    for (let at = offset; at < ran.result.output.length;) {
      const page = expectKind(await tools.execute("terminal_output", { session: "sh", cellId: ran.result.cellId, offset: at }), "output");
      expect(page.text.length).toBeGreaterThan(0);
      all += page.text;
      at += page.text.length;
    }
    expect(all.split("\n")).toEqual(Array.from({ length: 3000 }, (_, i) => String(i + 1)));
  });

  test("terminal_send keys drive the program and a bad key name types nothing", async () => {
    const tools = kit();
    await tools.execute("terminal_open", { name: "sh" });
    const bad = expectKind(await tools.execute("terminal_send", { session: "sh", text: "echo typed", keys: ["enterr"] }), "error");
    expect(bad.code).toBe("ERR_INVALID_ARGUMENT");
    expect(tools.render(bad)).toContain('unknown key name "enterr"');
    const sh = tools.manager.get("sh");
    expect(sh?.screen()).not.toContain("echo typed");
    // Returned as soon as cat is seen waiting (~250 ms; a 500 ms soft wait could end first under load).
    const cat = expectKind(await tools.execute("terminal_run", { session: "sh", code: "cat", timeoutMs: 10_000 }), "cell");
    expect(cat.result.status).toBe("awaiting_input");
    const stopped = expectKind(await tools.execute("terminal_send", { session: "sh", keys: ["ctrl+d"] }), "cell");
    expect(stopped.result).toMatchObject({ status: "done", exitCode: 0 });
  });

  test("terminal_interrupt with force frees a session whose command ignores Ctrl-C", async () => {
    const tools = kit();
    await tools.execute("terminal_open", { name: "stubborn" });
    const running = expectKind(
      await tools.execute("terminal_run", { session: "stubborn", code: "trap '' INT; sleep 5; trap - INT", timeoutMs: 200 }),
      "running",
    );
    const forced = expectKind(await tools.execute("terminal_interrupt", { session: "stubborn", force: true }), "cell");
    expect(forced.result).toMatchObject({ status: "interrupted", cellId: running.cellId });
    expect(forced.result.output).toMatch(/force: true/);
    expect(tools.manager.get("stubborn")?.state).toBe("idle");
  });

  test("terminal_screen, terminal_list, terminal_interrupt and terminal_close", async () => {
    const tools = kit();
    await tools.execute("terminal_open", { name: "a", label: "api tests" });
    await tools.execute("terminal_run", { session: "a", code: "echo visible" });
    expect(expectKind(await tools.execute("terminal_screen", { session: "a" }), "screen").screen).toContain("visible");
    const running = expectKind(await tools.execute("terminal_run", { session: "a", code: "sleep 30", timeoutMs: 200 }), "running");
    const list = expectKind(await tools.execute("terminal_list", {}), "sessions");
    expect(list.sessions).toEqual([
      expect.objectContaining({ name: "a", label: "api tests", activeCell: expect.objectContaining({ id: running.cellId }) }),
    ]);
    const interrupted = expectKind(await tools.execute("terminal_interrupt", { session: "a" }), "cell");
    expect(interrupted.result).toMatchObject({ status: "interrupted", cellId: running.cellId });
    expect((await tools.execute("terminal_interrupt", { session: "a" })).kind).toBe("nothing_to_interrupt");
    const pid = tools.manager.get("a")?.pid ?? -1;
    expect(expectKind(await tools.execute("terminal_close", { session: "a" }), "closed").existed).toBe(true);
    expect(isAlive(pid)).toBe(false);
    expect(expectKind(await tools.execute("terminal_run", { session: "a", code: "echo" }), "error").code).toBe("ERR_UNKNOWN_SESSION");
  });
});

describe("policy", () => {
  test("beforeRun refuses a cell with its reason and nothing is written", async () => {
    const seen: string[] = [];
    const tools = kit({
      beforeRun: (session, code) => {
        seen.push(`${session}: ${code}`);
        return code.includes("rm ") ? "deleting files needs the user's approval" : undefined;
      },
    });
    await tools.execute("terminal_open", { name: "sh" });
    const refused = expectKind(await tools.execute("terminal_run", { session: "sh", code: "rm -rf /tmp/nothing-here" }), "error");
    expect(refused.code).toBe("ERR_REFUSED");
    expect(tools.render(refused)).toBe(
      "Refused: deleting files needs the user's approval. Nothing was run. Do something else, or ask the user.",
    );
    expect(tools.manager.get("sh")?.history(20)).not.toContain("rm -rf");
    // A line typed at an idle prompt runs too, so it meets the same policy.
    expect(expectKind(await tools.execute("terminal_send", { session: "sh", text: "rm -rf /tmp/x\n" }), "error").code).toBe("ERR_REFUSED");
    expect(seen).toEqual(["sh: rm -rf /tmp/nothing-here", "sh: rm -rf /tmp/x"]);
  });

  test("allowCommands refuses other programs", async () => {
    const tools = kit({ allowCommands: ["bash"] });
    const refused = expectKind(await tools.execute("terminal_open", { command: "python3" }), "error");
    expect(refused.code).toBe("ERR_REFUSED");
    expect(tools.render(refused)).toContain("starting 'python3' is not allowed here");
    expect(tools.manager.size).toBe(0);
  });

  test("maxSessions refuses one session too many and lists the open ones", async () => {
    const tools = kit({ maxSessions: 1 });
    await tools.execute("terminal_open", { name: "one" });
    const refused = expectKind(await tools.execute("terminal_open", { name: "two" }), "error");
    expect(refused).toMatchObject({ code: "ERR_TOO_MANY_SESSIONS", openSessions: ["one"] });
  });

  test("invalid input and unknown tools come back as outcomes, never as exceptions", async () => {
    const tools = kit();
    const invalid = expectKind(await tools.execute("terminal_run", { session: "x", code: 42 }), "error");
    expect(tools.render(invalid)).toMatch(/^Error: invalid input for terminal_run: `code`: .*Fix the input and call terminal_run again\.$/);
    expect(expectKind(await tools.execute("terminal_fly", {}), "error").code).toBe("ERR_UNKNOWN_TOOL");
    expect(expectKind(await tools.execute("terminal_open", { cwd: "/no/such/dir" }), "error").code).toBe("ERR_SPAWN");
  });

  test("a manager given by the host is used; close() ends only the sessions the tools opened", async () => {
    const manager = trackManager(new SessionManager());
    const hosts = await manager.create("host", { command: "bash", args: ["--norc", "--noprofile"] });
    const tools = kit({ manager });
    await tools.execute("terminal_open", { name: "mine" });
    expect(manager.get("mine")).toBeDefined();
    await tools.close();
    expect(manager.get("mine")).toBeUndefined();
    expect(manager.get("host")).toBe(hosts);
  });
});
