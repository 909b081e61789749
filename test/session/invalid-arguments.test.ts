import { describe, expect, it } from "vitest";
import { AgentTtyError, Session, detectors, type Session as SessionType } from "../../src/index.js";
import { spawnBash, track } from "../helpers/sessions.js";

/** The error a call threw or a promise rejected with. */
async function failure(call: () => unknown): Promise<unknown> {
  try {
    const value = call();
    if (value instanceof Promise) {
      const resolved: unknown = await value;
      if (resolved instanceof Session) track(resolved);
    }
  } catch (error) {
    return error;
  }
  return undefined;
}

async function expectInvalid(call: () => unknown): Promise<void> {
  const error = await failure(call);
  expect(error, "expected an ERR_INVALID_ARGUMENT").toBeInstanceOf(AgentTtyError);
  expect((error as AgentTtyError).code).toBe("ERR_INVALID_ARGUMENT");
}

describe("invalid arguments throw AgentTtyError ERR_INVALID_ARGUMENT", () => {
  const badSpawnOptions: Array<[string, Record<string, unknown>]> = [
    ["negative timeoutMs", { timeoutMs: -1 }],
    ["NaN readyTimeoutMs", { readyTimeoutMs: Number.NaN }],
    ["zero cols", { cols: 0 }],
    ["fractional rows", { rows: 10.5 }],
    ["zero maxOutputBytes", { maxOutputBytes: 0 }],
    ["args not an array", { args: "-l" }],
    ["env with a number", { env: { X: 1 } }],
    ["unknown detector name", { detector: "magic" }],
    ["name with a slash", { name: "a/b" }],
    ["name with ..", { name: "a..b" }],
    ["name of only dots", { name: "." }],
    ["empty name", { name: "" }],
    ["hardenEnv not a boolean", { hardenEnv: "yes" }],
    ["an unknown option", { colour: true }],
    ["empty command", { command: "" }],
  ];
  for (const [what, options] of badSpawnOptions) {
    it(`Session.spawn with ${what}`, async () => {
      await expectInvalid(() => Session.spawn({ command: "bash", args: ["--norc"], ...options } as never));
    });
  }

  describe("cells", () => {
    let sh: SessionType;
    const session = async () => (sh = await spawnBash());

    it("an empty cell (run and fire)", async () => {
      await session();
      await expectInvalid(() => sh.run(""));
      await expectInvalid(() => sh.run("  \n\t\n"));
      await expectInvalid(() => sh.fire(""));
      expect(sh.state).toBe("idle");
    });

    it("a cell that is not a string", async () => {
      await session();
      await expectInvalid(() => sh.run(42 as never));
    });

    it("bad cell options", async () => {
      await session();
      await expectInvalid(() => sh.run("echo x", { timeoutMs: 0 }));
      await expectInvalid(() => sh.run("echo x", { timeoutMs: Number.POSITIVE_INFINITY }));
      await expectInvalid(() => sh.run("echo x", { onTimeout: "explode" as never }));
      await expectInvalid(() => sh.run("echo x", { queue: "yes" as never }));
      await expectInvalid(() => sh.run("echo x", { signal: {} as never }));
      await expectInvalid(() => sh.run("echo x", { bogus: 1 } as never));
    });

    it("a rejected call does not take the lock", async () => {
      await session();
      await expectInvalid(() => sh.run("", { queue: true }));
      expect(sh.state).toBe("idle");
      expect((await sh.run("echo still-usable")).output).toBe("still-usable");
    });

    it("poll() with a non-string id", async () => {
      await session();
      await expectInvalid(() => sh.poll(7 as never));
    });
  });

  describe("detectors", () => {
    it("prompt() with an empty pattern", async () => {
      await expectInvalid(() => detectors.prompt(""));
    });
    it("prompt() with a number", async () => {
      await expectInvalid(() => detectors.prompt(3 as never));
    });
    it("repeatEnter() with a bad count", async () => {
      await expectInvalid(() => detectors.repeatEnter({ count: 0 }));
      await expectInvalid(() => detectors.repeatEnter({ count: 1.5 }));
    });
    it("idle() with a negative ms", async () => {
      await expectInvalid(() => detectors.idle({ ms: -5 }));
    });
    it("hook() with neither a function nor a path", async () => {
      await expectInvalid(() => detectors.hook(12 as never));
    });
    it("hook() with a missing executable", async () => {
      await expectInvalid(() => detectors.hook("/nonexistent/agent-tty-hook"));
    });
  });
});
