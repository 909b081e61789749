import { describe, expect, it } from "vitest";
import { AgentTtyError, SessionManager } from "../../src/index.js";
import { isAlive, trackManager } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";

const BASH = { command: "bash", args: ["--norc", "--noprofile"] } as const;

/** Resolves with the AgentTtyError `promise` rejects with (fails if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<AgentTtyError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(AgentTtyError);
  return outcome as AgentTtyError;
}

describe("SessionManager", () => {
  it("create() keeps label and description; get() finds the session; list() shows command, pid, state, activity and createdAt", async () => {
    const mgr = trackManager(new SessionManager());
    const before = Date.now();
    const sh = await mgr.create("api", { ...BASH, label: "api tests", description: "runs the API test suite" });
    expect(sh.name).toBe("api");
    expect(sh.label).toBe("api tests");
    expect(sh.description).toBe("runs the API test suite");
    expect(mgr.get("api")).toBe(sh);
    expect(mgr.get("nope")).toBeUndefined();

    const rows = mgr.list();
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row).toMatchObject({
      name: "api",
      label: "api tests",
      description: "runs the API test suite",
      command: "bash",
      pid: sh.pid,
      state: "idle",
      activity: "idle",
      activeCell: null,
    });
    expect(typeof row?.pid).toBe("number");
    expect(row?.createdAt).toBeInstanceOf(Date);
    expect(row?.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(row?.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("list() shows the running cell while it runs, awaiting_input while it asks, and idle after", async () => {
    const mgr = trackManager(new SessionManager());
    const sh = await mgr.create("asker", BASH);
    await mgr.create("bystander", BASH);
    const cell = sh.fire(`read -p "Go on? " a; echo "a=$a"`);

    const busy = mgr.list().find((row) => row.name === "asker");
    expect(busy?.state).toBe("busy");
    expect(busy?.activeCell).toMatchObject({ id: cell.id, code: `read -p "Go on? " a; echo "a=$a"` });
    expect(busy?.activeCell?.startedAt).toBeInstanceOf(Date);
    expect(mgr.list().find((row) => row.name === "bystander")).toMatchObject({ state: "idle", activity: "idle", activeCell: null });

    await waitFor(() => mgr.list().find((row) => row.name === "asker")?.activity === "awaiting_input", {
      message: "the manager to show awaiting_input",
    });
    sh.type("yes\n");
    expect((await cell.result).output).toContain("a=yes");
    expect(mgr.list().find((row) => row.name === "asker")).toMatchObject({ state: "idle", activity: "idle", activeCell: null });
    expect(mgr.list().map((row) => row.name)).toEqual(["asker", "bystander"]);
  });

  it("a duplicate name rejects with AgentTtyError, also while the first one is still starting", async () => {
    const mgr = trackManager(new SessionManager());
    const [first, second] = await Promise.allSettled([mgr.create("twin", BASH), mgr.create("twin", BASH)]);
    expect(first.status).toBe("fulfilled");
    expect(second.status).toBe("rejected");
    expect((second as PromiseRejectedResult).reason).toBeInstanceOf(AgentTtyError);
    expect((second as PromiseRejectedResult).reason.code).toBe("ERR_SESSION_EXISTS");

    const again = await rejection(mgr.create("twin", BASH));
    expect(again.code).toBe("ERR_SESSION_EXISTS");
    expect(again.message).toContain("twin");
    expect(mgr.size).toBe(1);
  });

  it("invalid names reject with ERR_INVALID_ARGUMENT and start nothing", async () => {
    const mgr = trackManager(new SessionManager());
    for (const name of ["", ".", "..", "a..b", "has space", "a/b", "semi;colon", "ünï"]) {
      const error = await rejection(mgr.create(name, BASH));
      expect(error.code, `name ${JSON.stringify(name)}`).toBe("ERR_INVALID_ARGUMENT");
    }
    await rejection(mgr.create(42 as unknown as string, BASH));
    expect(mgr.size).toBe(0);
    expect(mgr.list()).toEqual([]);
    const ok = await mgr.create("ok.name_1-2", BASH);
    expect(ok.name).toBe("ok.name_1-2");
  });

  it("maxSessions is enforced; closing one makes room again", async () => {
    const mgr = trackManager(new SessionManager({ maxSessions: 2 }));
    await mgr.create("one", BASH);
    await mgr.create("two", BASH);
    const error = await rejection(mgr.create("three", BASH));
    expect(error.code).toBe("ERR_TOO_MANY_SESSIONS");
    expect(mgr.size).toBe(2);

    expect(await mgr.close("one")).toBe(true);
    expect(await mgr.close("one")).toBe(false);
    expect(mgr.get("one")).toBeUndefined();
    const three = await mgr.create("three", BASH);
    expect((await three.run("echo room")).output).toBe("room");
    expect(() => new SessionManager({ maxSessions: 0 })).toThrow(expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }));
  });

  it("closeAll() leaves no process behind: shells, foreground commands and background jobs are gone", async () => {
    const mgr = trackManager(new SessionManager());
    const pids: number[] = [];
    for (const name of ["w1", "w2", "w3"]) {
      const sh = await mgr.create(name, BASH);
      pids.push(sh.pid as number);
      const background = await sh.run("sleep 300 & echo $!");
      // Interactive bash also prints the job line `[1] <pid>`: the last line is `echo $!`.
      pids.push(Number(background.output.split("\n").at(-1)));
    }
    const busy = mgr.get("w3");
    const foreground = busy?.fire("sleep 301; echo never");
    await waitFor(() => busy?.activity === "running" && (busy.quietMs ?? 0) > 100, { message: "the foreground sleep to run" });

    expect(pids.every((pid) => Number.isInteger(pid) && pid > 1)).toBe(true);
    expect(pids.every(isAlive)).toBe(true);
    await mgr.closeAll();
    await waitFor(() => pids.filter(isAlive).length === 0, {
      timeoutMs: 2_000,
      message: `no process left (alive: ${pids.filter(isAlive).join(", ")})`,
    });
    expect(mgr.size).toBe(0);
    expect(mgr.list()).toEqual([]);
    expect((await foreground?.result)?.status).toBe("exited");
  });

  it("closeAll() resolves only once every process it killed is gone, SIGHUP-ignoring background jobs included", async () => {
    const mgr = trackManager(new SessionManager());
    const sh = await mgr.create("stubborn", BASH);
    const jobs = await sh.run("for i in 1 2 3 4 5 6 7 8 9 10 11 12; do (trap '' HUP; exec sleep 300) & done 2>/dev/null; jobs -p");
    const pids = [sh.pid as number, ...jobs.output.split("\n").map(Number)];
    expect(pids).toHaveLength(13);
    expect(pids.every(isAlive)).toBe(true);

    await mgr.closeAll();
    const aliveWhenResolved = pids.filter(isAlive);
    // They are killed: gone soon after. The contract is that closeAll() already waited for that.
    await waitFor(() => pids.filter(isAlive).length === 0, { timeoutMs: 3_000, message: "the jobs to be killed" });
    expect(aliveWhenResolved).toEqual([]);
  });

  it("a session whose program exits leaves the list", async () => {
    const mgr = trackManager(new SessionManager());
    const sh = await mgr.create("short", BASH);
    await mgr.create("long", BASH);
    expect((await sh.run("exit 0")).status).toBe("exited");
    await waitFor(() => mgr.get("short") === undefined, { message: "the exited session to leave the manager" });
    expect(mgr.list().map((row) => row.name)).toEqual(["long"]);
    await mgr.create("short", BASH);
    expect(mgr.size).toBe(2);
  });
});
