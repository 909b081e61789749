import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentTtyError, detectors, Session, SessionClosedError, SessionManager, type Session as SessionType } from "../../src/index.js";
import { spawnBash, track, trackManager } from "../helpers/sessions.js";
import { descendants, expectInvalidArgument, recordRaw, thrown } from "../helpers/processes.js";

/** Calls a method with arguments its types forbid, as untyped JavaScript callers do. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const ABORT_LIKE = { aborted: false, addEventListener: "nope" };

/** Direct children of this process: a call that wrongly started a program shows up here. */
function children(): number[] {
  return descendants()
    .filter((entry) => entry.ppid === process.pid)
    .map((entry) => entry.pid);
}

/** Asserts `call` starts no process that outlives it. */
async function expectNoNewChild(call: () => Promise<unknown>): Promise<void> {
  const before = new Set(children());
  await call();
  const started = children().filter((pid) => !before.has(pid));
  expect(started, `processes left running by a refused call: ${JSON.stringify(descendants())}`).toEqual([]);
}

// A call that wrongly went ahead would start bash with the user's rc files
// (slow, and killing it mid-start can leave their locks behind): give this
// file an empty HOME, and end whatever a refused call left running.
const savedHome = process.env["HOME"];
let home = "";
let childrenAtStart = new Set<number>();
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "agent-tty-home-"));
  process.env["HOME"] = home;
  childrenAtStart = new Set(children());
});
afterAll(() => {
  for (const pid of children()) if (!childrenAtStart.has(pid)) process.kill(pid, "SIGKILL");
  process.env["HOME"] = savedHome;
  rmSync(home, { recursive: true, force: true });
});

describe("bad arguments: Session.spawn", () => {
  const cases: Array<[string, unknown, string]> = [
    ["options that are a number", 42, "options"],
    ["options that are a string", "bash", "options"],
    ["options that are null", null, "options"],
    ["options that are an array", ["bash"], "options"],
    ["an unknown option", { comand: "bash" }, "comand"],
    ["a numeric command", { command: 42 }, "command"],
    ["an empty command", { command: "" }, "command"],
    ["args that are a string", { args: "--norc" }, "args"],
    ["args holding a number", { args: ["--norc", 1] }, "args"],
    ["a numeric cwd", { cwd: 42 }, "cwd"],
    ["env that is a string", { env: "A=1" }, "env"],
    ["an env value that is a number", { env: { A: 1 } }, "env.A"],
    ["cols of 0", { cols: 0 }, "cols"],
    ["negative cols", { cols: -80 }, "cols"],
    ["fractional cols", { cols: 80.5 }, "cols"],
    ["cols as a string", { cols: "80" }, "cols"],
    ["cols beyond what a terminal can hold (65535)", { cols: 100_000 }, "cols"],
    ["NaN rows", { rows: Number.NaN }, "rows"],
    ["infinite rows", { rows: Number.POSITIVE_INFINITY }, "rows"],
    ["a name with a space", { name: "my shell" }, "name"],
    ["a name of '..'", { name: ".." }, "name"],
    ["a name with a path", { name: "../etc" }, "name"],
    ["an empty name", { name: "" }, "name"],
    ["a name of only dots", { name: "..." }, "name"],
    ["a name of 200 characters", { name: "a".repeat(200) }, "name"],
    ["a numeric label", { label: 42 }, "label"],
    ["an object description", { description: {} }, "description"],
    ["an unknown detector name", { detector: "magic" }, "detector"],
    ["a detector without feed", { detector: { name: "x" } }, "detector"],
    ["a timeout of 0", { timeoutMs: 0 }, "timeoutMs"],
    ["a negative timeout", { timeoutMs: -1 }, "timeoutMs"],
    ["a timeout as a string", { timeoutMs: "1000" }, "timeoutMs"],
    ["a NaN ready timeout", { readyTimeoutMs: Number.NaN }, "readyTimeoutMs"],
    ["an output cap of 0", { maxOutputBytes: 0 }, "maxOutputBytes"],
    ["a fractional output cap", { maxOutputBytes: 1.5 }, "maxOutputBytes"],
    ["hardenEnv as a string", { hardenEnv: "yes" }, "hardenEnv"],
    ["a negative close grace", { closeGraceMs: -1 }, "closeGraceMs"],
    ["a fractional process limit", { maxProcesses: 2.5 }, "maxProcesses"],
    ["a zero process limit", { maxProcesses: 0 }, "maxProcesses"],
  ];
  it.each(cases)("rejects %s with ERR_INVALID_ARGUMENT naming the option, and starts nothing", async (_what, options, mention) => {
    await expectNoNewChild(async () => {
      const error = await expectInvalidArgument(() => Session.spawn(options as Loose).then(track), mention);
      expect(error.message).toMatch(/Expected|Unknown/);
    });
  });

  it("a missing command rejects with ERR_SPAWN naming it", async () => {
    const error = await thrown(() => Session.spawn({ command: "agent-tty-no-such-program-xyz" }));
    expect(error).toBeInstanceOf(AgentTtyError);
    expect((error as AgentTtyError).code).toBe("ERR_SPAWN");
    expect((error as AgentTtyError).message).toContain("agent-tty-no-such-program-xyz");
  });

  it("a missing cwd rejects with ERR_SPAWN naming it", async () => {
    const error = await thrown(() => Session.spawn({ cwd: "/no/such/dir/agent-tty" }));
    expect(error).toBeInstanceOf(AgentTtyError);
    expect((error as AgentTtyError).code).toBe("ERR_SPAWN");
    expect((error as AgentTtyError).message).toContain("/no/such/dir/agent-tty");
  });
});

describe("bad arguments: a live session", () => {
  /** A bash session whose raw output is recorded, to prove refused calls write nothing. */
  async function session(): Promise<{ sh: SessionType; raw: () => string }> {
    // A short timeout: a call wrongly accepted (an expect() that waits) fails the test fast.
    const sh = await spawnBash({ timeoutMs: 2_000 });
    const recorder = recordRaw(sh);
    return { sh, raw: recorder.text };
  }

  const badCode: Array<[string, unknown]> = [
    ["undefined", undefined],
    ["a number", 42],
    ["null", null],
    ["an object", { code: "ls" }],
    ["an empty string", ""],
    ["only spaces", "   "],
    ["only newlines", "\n\n\r\n"],
  ];
  const badCellOptions: Array<[string, unknown, string]> = [
    ["a number", 42, "options"],
    ["a string", "queue", "options"],
    ["an array", [], "options"],
    ["an unknown option", { timeout: 5 }, "timeout"],
    ["a timeout of 0", { timeoutMs: 0 }, "timeoutMs"],
    ["a negative timeout", { timeoutMs: -5 }, "timeoutMs"],
    ["a NaN timeout", { timeoutMs: Number.NaN }, "timeoutMs"],
    ["a timeout as a string", { timeoutMs: "5" }, "timeoutMs"],
    ["a signal that is a string", { signal: "abort" }, "signal"],
    ["a signal that only looks like one", { signal: ABORT_LIKE }, "signal"],
    ["an unknown onTimeout", { onTimeout: "kill" }, "onTimeout"],
    ["queue as a string", { queue: "yes" }, "queue"],
    ["untilInput as a number", { untilInput: 1 }, "untilInput"],
  ];

  it("run() and fire() refuse bad code with ERR_INVALID_ARGUMENT, write nothing, and the session stays idle", async () => {
    const { sh, raw } = await session();
    const before = raw();
    for (const [what, code] of badCode) {
      await expectInvalidArgument(() => sh.run(code as Loose), "code");
      let syncError: unknown;
      try {
        sh.fire(code as Loose);
      } catch (error) {
        syncError = error;
      }
      expect(syncError, `fire(${what}) throws synchronously`).toBeInstanceOf(AgentTtyError);
      expect((syncError as AgentTtyError).code).toBe("ERR_INVALID_ARGUMENT");
    }
    expect(raw()).toBe(before);
    expect(sh.state).toBe("idle");
    expect((await sh.run("echo fine")).output).toBe("fine");
  });

  it("run() and fire() refuse bad options with ERR_INVALID_ARGUMENT naming the option, and write nothing", async () => {
    const { sh, raw } = await session();
    const before = raw();
    for (const [what, options, mention] of badCellOptions) {
      await expectInvalidArgument(() => sh.run("echo SHOULD_NOT_RUN", options as Loose), mention);
      let syncError: unknown;
      try {
        sh.fire("echo SHOULD_NOT_RUN", options as Loose);
      } catch (error) {
        syncError = error;
      }
      expect(syncError, `fire with ${what}`).toBeInstanceOf(AgentTtyError);
      expect((syncError as AgentTtyError).code).toBe("ERR_INVALID_ARGUMENT");
    }
    expect(raw()).toBe(before);
    expect(raw()).not.toContain("SHOULD_NOT_RUN");
    expect(sh.state).toBe("idle");
  });

  it("poll() refuses a non-string id with ERR_INVALID_ARGUMENT and an unknown id with an AgentTtyError saying what is kept", async () => {
    const { sh } = await session();
    for (const id of [42, null, {}, ["x"]]) await expectInvalidArgument(() => sh.poll(id as Loose), "cellId");
    const unknown = await thrown(() => sh.poll("no-such-cell"));
    expect(unknown).toBeInstanceOf(AgentTtyError);
    expect((unknown as AgentTtyError).message).toContain("no-such-cell");
  });

  // One row per call: what is passed, and what the message must name.
  const calls: Array<[string, (sh: SessionType) => unknown, string]> = [
    ["wait({ timeoutMs: -1 })", (sh) => sh.wait({ timeoutMs: -1 }), "timeoutMs"],
    ['wait({ timeoutMs: "1" })', (sh) => sh.wait({ timeoutMs: "1" } as Loose), "timeoutMs"],
    ['wait({ untilInput: "yes" })', (sh) => sh.wait({ untilInput: "yes" } as Loose), "untilInput"],
    ["wait(42)", (sh) => sh.wait(42 as Loose), "options"],
    ["wait({ timeout: 5 }) (unknown option)", (sh) => sh.wait({ timeout: 5 } as Loose), "timeout"],
    ["expect(42)", (sh) => sh.expect(42 as Loose), "pattern"],
    ["expect(null)", (sh) => sh.expect(null as Loose), "pattern"],
    ["expect(undefined)", (sh) => sh.expect(undefined as Loose), "pattern"],
    ['expect("")', (sh) => sh.expect(""), "pattern"],
    ["expect({})", (sh) => sh.expect({} as Loose), "pattern"],
    ['expect("x", { timeoutMs: 0 })', (sh) => sh.expect("x", { timeoutMs: 0 }), "timeoutMs"],
    ['expect("x", { timeoutMs: "5" })', (sh) => sh.expect("x", { timeoutMs: "5" } as Loose), "timeoutMs"],
    ['expect("x", { signal: "abort" })', (sh) => sh.expect("x", { signal: "abort" } as Loose), "signal"],
    ['expect("x", { signal: <not an AbortSignal> })', (sh) => sh.expect("x", { signal: ABORT_LIKE } as Loose), "signal"],
    ['expect("x", 42)', (sh) => sh.expect("x", 42 as Loose), "options"],
    ['expect("x", { timeout: 5 }) (unknown option)', (sh) => sh.expect("x", { timeout: 5 } as Loose), "timeout"],
    ["write(42)", (sh) => sh.write(42 as Loose), "data"],
    ["write(undefined)", (sh) => sh.write(undefined as Loose), "data"],
    ["write(Buffer)", (sh) => sh.write(Buffer.from("x") as Loose), "data"],
    ["type(null)", (sh) => sh.type(null as Loose), "text"],
    ["type({})", (sh) => sh.type({} as Loose), "text"],
    ["paste(42)", (sh) => (sh as Loose).paste(42), "text"],
    ["notify(42)", (sh) => sh.notify(42 as Loose), "message"],
    ['press("enter", "hyperspace")', (sh) => sh.press("enter", "hyperspace"), "hyperspace"],
    ["press()", (sh) => sh.press(), "key"],
    ["press(42)", (sh) => sh.press(42 as Loose), "key"],
    ['press("")', (sh) => sh.press(""), "key"],
    ['press("ctrl+")', (sh) => sh.press("ctrl+"), "ctrl+"],
    ['press("ctrl+alt+shift+hyper+x")', (sh) => sh.press("ctrl+alt+shift+hyper+x"), "hyper"],
    ["resize(0, 24)", (sh) => sh.resize(0, 24), "cols"],
    ["resize(-1, 24)", (sh) => sh.resize(-1, 24), "cols"],
    ["resize(80.5, 24)", (sh) => sh.resize(80.5, 24), "cols"],
    ['resize("80", 24)', (sh) => sh.resize("80" as Loose, 24), "cols"],
    ["resize(NaN, 24)", (sh) => sh.resize(Number.NaN, 24), "cols"],
    ["resize(Infinity, 24)", (sh) => sh.resize(Number.POSITIVE_INFINITY, 24), "cols"],
    ["resize(80, 0)", (sh) => sh.resize(80, 0), "rows"],
    ["resize(80) (rows missing)", (sh) => (sh as Loose).resize(80), "rows"],
    ["resize() (both missing)", (sh) => (sh as Loose).resize(), "cols"],
    ["resize(100000, 24)", (sh) => sh.resize(100_000, 24), "cols"],
    ["history(0)", (sh) => sh.history(0), "lines"],
    ["history(-1)", (sh) => sh.history(-1), "lines"],
    ["history(1.5)", (sh) => sh.history(1.5), "lines"],
    ['history("10")', (sh) => sh.history("10" as Loose), "lines"],
    ["history(NaN)", (sh) => sh.history(Number.NaN), "lines"],
    ["history(null)", (sh) => sh.history(null as Loose), "lines"],
    ['output({ signal: "abort" })', (sh) => sh.output({ signal: "abort" } as Loose), "signal"],
    ['output({ raw: "yes" })', (sh) => sh.output({ raw: "yes" } as Loose), "raw"],
    ["events({ signal: 42 })", (sh) => sh.events({ signal: 42 } as Loose), "signal"],
  ];
  it.each(calls)("%s fails with ERR_INVALID_ARGUMENT, writes nothing and leaves the session as it was", async (_what, call, mention) => {
    const { sh, raw } = await session();
    await sh.run("echo ready");
    const before = raw();
    await expectInvalidArgument(() => call(sh), mention);
    expect(raw()).toBe(before);
    expect(sh.state).toBe("idle");
    const r = await sh.run("stty size; echo fine");
    expect(r.output).toBe("50 200\nfine");
  });

  it("every call on a closed session rejects or throws SessionClosedError", async () => {
    const { sh } = await session();
    await sh.close();
    await expect(sh.run("echo x")).rejects.toBeInstanceOf(SessionClosedError);
    expect(() => sh.fire("echo x")).toThrow(SessionClosedError);
    expect(() => sh.write("x")).toThrow(SessionClosedError);
    expect(() => sh.type("x")).toThrow(SessionClosedError);
    expect(() => sh.press("enter")).toThrow(SessionClosedError);
    expect(() => sh.resize(80, 24)).toThrow(SessionClosedError);
    expect(() => sh.notify("x")).toThrow(SessionClosedError);
    await expect(sh.expect("x")).rejects.toBeInstanceOf(SessionClosedError);
    await expect(sh.interrupt()).rejects.toBeInstanceOf(SessionClosedError);
    await expect(sh.wait()).rejects.toBeInstanceOf(SessionClosedError);
    await sh.close();
  });
});

describe("bad arguments: SessionManager and detectors", () => {
  const managerCalls: Array<[string, () => unknown, string]> = [
    ["new SessionManager(42)", () => new SessionManager(42 as Loose), "options"],
    ["new SessionManager(null)", () => new SessionManager(null as Loose), "options"],
    ["new SessionManager({ maxSessions: 0 })", () => new SessionManager({ maxSessions: 0 }), "maxSessions"],
    ["new SessionManager({ maxSessions: -1 })", () => new SessionManager({ maxSessions: -1 }), "maxSessions"],
    ["new SessionManager({ maxSessions: 1.5 })", () => new SessionManager({ maxSessions: 1.5 }), "maxSessions"],
    ['new SessionManager({ maxSessions: "5" })', () => new SessionManager({ maxSessions: "5" } as Loose), "maxSessions"],
    ["new SessionManager({ maxSesions: 5 }) (unknown option)", () => new SessionManager({ maxSesions: 5 } as Loose), "maxSesions"],
    ["create(42)", () => new SessionManager().create(42 as Loose), "name"],
    ["create(undefined)", () => new SessionManager().create(undefined as Loose), "name"],
    ['create("")', () => new SessionManager().create(""), "name"],
    ['create("a b")', () => new SessionManager().create("a b"), "name"],
    ['create("..")', () => new SessionManager().create(".."), "name"],
    ['create("../x")', () => new SessionManager().create("../x"), "name"],
    ['create("a/b")', () => new SessionManager().create("a/b"), "name"],
    ["create(<200 characters>)", () => new SessionManager().create("a".repeat(200)), "name"],
    [
      'create("ok", 42)',
      () =>
        trackManager(new SessionManager())
          .create("ok", 42 as Loose)
          .then(track),
      "options",
    ],
    ['create("ok", { cols: -1 })', () => trackManager(new SessionManager()).create("ok", { cols: -1 }), "cols"],
    ["get(42)", () => new SessionManager().get(42 as Loose), "name"],
    ["close({})", () => new SessionManager().close({} as Loose), "name"],
    ["detectors.prompt(42)", () => detectors.prompt(42 as Loose), "pattern"],
    ['detectors.prompt("")', () => detectors.prompt(""), "pattern"],
    ['detectors.prompt("$ ", { continuation: 42 })', () => detectors.prompt("$ ", { continuation: 42 } as Loose), "continuation"],
    ['detectors.prompt("$ ", null)', () => detectors.prompt("$ ", null as Loose), "options"],
    ["detectors.repeatEnter({ count: 0 })", () => detectors.repeatEnter({ count: 0 }), "count"],
    ["detectors.repeatEnter({ count: 2.5 })", () => detectors.repeatEnter({ count: 2.5 }), "count"],
    ["detectors.repeatEnter(null)", () => detectors.repeatEnter(null as Loose), "options"],
    ["detectors.idle({ ms: -1 })", () => detectors.idle({ ms: -1 }), "ms"],
    ["detectors.idle(null)", () => detectors.idle(null as Loose), "options"],
    ["detectors.hook(42)", () => detectors.hook(42 as Loose), "hook"],
    ['detectors.hook("/no/such/hook")', () => detectors.hook("/no/such/hook"), "/no/such/hook"],
    ["detectors.hook(fn, { partialDelayMs: -1 })", () => detectors.hook(() => true, { partialDelayMs: -1 }), "partialDelayMs"],
  ];
  it.each(managerCalls)("%s fails with ERR_INVALID_ARGUMENT (never a TypeError) and starts nothing", async (_what, call, mention) => {
    await expectNoNewChild(() => expectInvalidArgument(call, mention));
  });

  it("create() refuses a duplicate name and a session beyond maxSessions with their own codes, starting nothing more", async () => {
    const manager = trackManager(new SessionManager({ maxSessions: 1 }));
    await manager.create("one", { command: "bash", args: ["--norc", "--noprofile"] });
    await expectNoNewChild(async () => {
      const duplicate = await thrown(() => manager.create("one", { command: "bash", args: ["--norc", "--noprofile"] }));
      expect((duplicate as AgentTtyError).code).toBe("ERR_SESSION_EXISTS");
      expect((duplicate as AgentTtyError).message).toContain("one");
      const overflow = await thrown(() => manager.create("two", { command: "bash", args: ["--norc", "--noprofile"] }));
      expect((overflow as AgentTtyError).code).toBe("ERR_TOO_MANY_SESSIONS");
      expect((overflow as AgentTtyError).message).toContain("maxSessions");
    });
    expect(manager.size).toBe(1);
    expect(manager.list().map((info) => info.name)).toEqual(["one"]);
  });
});
