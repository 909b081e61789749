import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentTtyError, Session, detectors } from "../../src/index.js";
import { isAlive, track } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Spawns, tracking a session that unexpectedly succeeds; returns the rejection. */
async function spawnError(options: Parameters<typeof Session.spawn>[0]): Promise<AgentTtyError> {
  let error: unknown;
  try {
    track(await Session.spawn(options));
  } catch (caught) {
    error = caught;
  }
  expect(error, "Session.spawn should have rejected").toBeInstanceOf(AgentTtyError);
  return error as AgentTtyError;
}

describe("Session.spawn errors are typed", () => {
  it("a missing command rejects with ERR_SPAWN naming the command", async () => {
    const error = await spawnError({ command: "agent-tty-no-such-program-xyz" });
    expect(error.code).toBe("ERR_SPAWN");
    expect(error.message).toContain("agent-tty-no-such-program-xyz");
  });

  it("a missing command given by path rejects with ERR_SPAWN", async () => {
    const error = await spawnError({ command: "/nonexistent/dir/prog" });
    expect(error.code).toBe("ERR_SPAWN");
    expect(error.message).toContain("/nonexistent/dir/prog");
  });

  it("a cwd that does not exist rejects with ERR_SPAWN", async () => {
    const error = await spawnError({ command: "bash", args: ["--norc"], cwd: "/nonexistent/agent-tty/cwd" });
    expect(error.code).toBe("ERR_SPAWN");
    expect(error.message).toContain("bash");
    expect(error.message).toContain("/nonexistent/agent-tty/cwd");
  });

  it("a program that exits at once rejects with ERR_SPAWN (prompt detector)", async () => {
    const started = Date.now();
    const error = await spawnError({
      command: "bash",
      args: ["--norc", "--noprofile", "-c", "echo going away; exit 3"],
      detector: detectors.prompt("never> "),
      readyTimeoutMs: 10_000,
    });
    expect(error.code).toBe("ERR_SPAWN");
    expect(error.message).toContain("bash");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a program that exits at once rejects with ERR_SPAWN ("auto")', async () => {
    const started = Date.now();
    const error = await spawnError({ command: "false", readyTimeoutMs: 10_000 });
    expect(error.code).toBe("ERR_SPAWN");
    expect(error.message).toContain("false");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a program that never shows its prompt rejects with ERR_NOT_READY within readyTimeoutMs and is killed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-tty-notready-"));
    temps.push(dir);
    const pidFile = join(dir, "pid");
    const started = Date.now();
    const error = await spawnError({
      command: "bash",
      args: ["--norc", "--noprofile", "-c", `echo $$ > ${pidFile}; exec sleep 60`],
      detector: detectors.prompt("never> "),
      readyTimeoutMs: 700,
      closeGraceMs: 200,
    });
    const elapsed = Date.now() - started;
    expect(error.code).toBe("ERR_NOT_READY");
    expect(error.message).toContain("bash");
    expect(elapsed).toBeGreaterThanOrEqual(650);
    expect(elapsed).toBeLessThan(4_000);
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => !isAlive(pid), { timeoutMs: 3_000, message: `pid ${pid} to die` });
  });

  it("a successful spawn is idle with a pid and the given name, label and description", async () => {
    const sh = track(
      await Session.spawn({
        command: "bash",
        args: ["--norc", "--noprofile"],
        name: "work.1",
        label: "api tests",
        description: "free text",
      }),
    );
    expect(sh.state).toBe("idle");
    expect(sh.pid).toBeGreaterThan(0);
    expect(isAlive(sh.pid as number)).toBe(true);
    expect(sh.name).toBe("work.1");
    expect(sh.label).toBe("api tests");
    expect(sh.description).toBe("free text");
    expect(sh.exitCode).toBeNull();
    expect(sh.activeCell).toBeNull();
  });

  it("env is merged over process.env, TERM is set and given values win", async () => {
    const sh = track(
      await Session.spawn({ command: "bash", args: ["--norc", "--noprofile"], env: { AGENT_TTY_GIVEN: "yes", PAGER: "less" } }),
    );
    const r = await sh.run('echo "$AGENT_TTY_GIVEN|$TERM|$PAGER|$GIT_PAGER|${HOME:+home}"');
    expect(r.output).toBe(
      `yes|${process.env["TERM"] && process.env["TERM"] !== "dumb" ? process.env["TERM"] : "xterm-256color"}|less|cat|home`,
    );
  });
});
