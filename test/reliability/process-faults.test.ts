import { describe, expect, it } from "vitest";
import { SessionClosedError } from "../../src/index.js";
import { isAlive, seen, spawnBash, spawnSession } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";
import { sessionMembers } from "../helpers/processes.js";

/** Live processes named `comm` started in the session's terminal. */
function members(pid: number, comm: string): number[] {
  return sessionMembers(pid)
    .filter((entry) => entry.comm === comm)
    .map((entry) => entry.pid);
}

/** Waits until every pid is gone (dead or a zombie awaiting its reaper). */
async function allGone(pids: number[], timeoutMs = 3_000): Promise<void> {
  await waitFor(() => pids.every((pid) => !isAlive(pid)), { timeoutMs, message: "every process of the session to be gone" }).catch(() => {
    throw new Error(`still alive after ${timeoutMs} ms: ${pids.filter(isAlive).join(", ")}`);
  });
}

describe("process faults", () => {
  it("the shell killed with SIGKILL mid-cell settles the cell 'exited' with the output printed before, and the session refuses further cells", async () => {
    const sh = await spawnBash();
    const pid = sh.pid as number;
    const exits: unknown[] = [];
    sh.on("exit", (event) => exits.push(event));
    const cell = sh.fire("echo before-kill; sleep 30");
    await seen(cell, "before-kill");
    const sleeper = await waitFor(() => members(pid, "sleep")[0], { message: "the cell's sleep to start" });
    process.kill(pid, "SIGKILL");
    const r = await cell.result;
    expect(r.status).toBe("exited");
    expect(r.decidedBy).toBe("exit");
    expect(r.exitCode).toBeNull();
    expect(r.output).toBe("before-kill");
    expect(sh.state).toBe("exited");
    expect(exits).toHaveLength(1);
    await expect(sh.run("echo again")).rejects.toBeInstanceOf(SessionClosedError);
    await sh.close();
    expect(sh.state).toBe("closed");
    await allGone([pid, sleeper]);
  });

  it("a shell that kills itself with SIGKILL inside a cell settles it 'exited' with every byte it printed", async () => {
    const sh = await spawnBash();
    const r = await sh.run("seq 1 20000; echo last-words; kill -9 $$");
    expect(r.status).toBe("exited");
    expect(r.output).toBe(`${Array.from({ length: 20_000 }, (_, index) => index + 1).join("\n")}\nlast-words`);
    expect(sh.state).toBe("exited");
  });

  it("a shell that exits inside a cell settles it 'exited' with its exit status", async () => {
    const sh = await spawnBash();
    const r = await sh.run("echo bye; exit 7");
    expect(r.status).toBe("exited");
    expect(r.exitCode).toBe(7);
    expect(r.output).toMatch(/^bye(\nexit)?$/); // bash itself says "exit" as it leaves
    expect(sh.exitCode).toBe(7);
    await expect(sh.run("echo again")).rejects.toBeInstanceOf(SessionClosedError);
  });

  it("the cell's own program killed with SIGKILL settles the cell 'done' with status 137 and the shell carries on", async () => {
    const sh = await spawnBash();
    const pid = sh.pid as number;
    const cell = sh.fire("sleep 30");
    const sleeper = await waitFor(() => members(pid, "sleep")[0], { message: "the cell's sleep to start" });
    process.kill(sleeper, "SIGKILL");
    const r = await cell.result;
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(137);
    const next = await sh.run("echo alive");
    expect(next.output).toBe("alive");
  });

  it("close() ends a shell that ignores SIGHUP (SIGKILL after the grace period), settles its cell and leaves no process", async () => {
    const sh = await spawnBash({ closeGraceMs: 300 });
    const pid = sh.pid as number;
    expect((await sh.run("trap '' HUP")).status).toBe("done");
    const cell = sh.fire("sleep 1000");
    const sleeper = await waitFor(() => members(pid, "sleep")[0], { message: "the cell's sleep to start" });
    const started = performance.now();
    await sh.close();
    const closeMs = performance.now() - started;
    expect(closeMs).toBeLessThan(300 + 3_000);
    const r = await cell.result;
    expect(r.status).toBe("exited");
    await allGone([pid, sleeper]);
    expect(sessionMembers(pid)).toEqual([]);
  });

  it("close() ends a foreground program that ignores SIGHUP and SIGTERM", async () => {
    const sh = await spawnBash({ closeGraceMs: 300 });
    const pid = sh.pid as number;
    const cell = sh.fire(
      `python3 -c "import signal, time; signal.signal(signal.SIGHUP, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN); print('stubborn', flush=True); time.sleep(1000)"`,
    );
    await seen(cell, "stubborn");
    const python = await waitFor(() => members(pid, "python3")[0], { message: "python to start" });
    await sh.close();
    const r = await cell.result;
    expect(r.status).toBe("exited");
    expect(r.output).toBe("stubborn");
    await allGone([pid, python]);
  });

  it("close() ends background jobs, subshell grandchildren, nohup and disowned processes, HUP-ignoring ones included", async () => {
    const sh = await spawnBash({ closeGraceMs: 300 });
    const pid = sh.pid as number;
    const r = await sh.run(
      [
        "sleep 1001 &",
        "(sleep 1002 &)",
        "( (sleep 1003 &) & )",
        "nohup sleep 1004 >/dev/null 2>&1 &",
        "sleep 1005 & disown",
        "bash -c \"trap '' HUP; exec sleep 1006\" &",
        "(trap '' HUP TERM; sleep 1007) &",
        "echo started",
      ].join("\n"),
    );
    expect(r.status).toBe("done");
    expect(r.output).toContain("started");
    const sleepers = await waitFor(
      () => {
        const found = members(pid, "sleep");
        return found.length >= 7 ? found : undefined;
      },
      { message: "seven background sleeps" },
    );
    await sh.close();
    await allGone([pid, ...sleepers]);
    expect(sessionMembers(pid)).toEqual([]);
  });

  // The fork-bomb guard (maxProcesses) counts the processes of the terminal's
  // session while a cell runs. Its documented limits: a process that calls
  // setsid() on purpose (a daemon) leaves the session and is neither counted
  // nor reached by close(); an OS limit (`ulimit -u`, which root ignores, or
  // a cgroup's pids.max) is the stronger guard where one can be set. The
  // bombs here are bounded so that a broken guard cannot take CI down.
  it("a fork bomb (bounded, exponential) is stopped by the maxProcesses guard: session killed, cell 'exited' with a note", async () => {
    const sh = await spawnBash({ maxProcesses: 60, closeGraceMs: 300 });
    const pid = sh.pid as number;
    const events: string[] = [];
    sh.on("event", (event) => {
      if (event.type === "error") events.push(event.message ?? "");
    });
    const r = await sh.run("bomb() { if [ $1 -gt 0 ]; then bomb $(($1 - 1)) & bomb $(($1 - 1)) & fi; sleep 30; }; bomb 7", {
      timeoutMs: 20_000,
    });
    expect(r.status).toBe("exited");
    expect(r.output).toContain("more than maxProcesses (60)");
    expect(events.join("\n")).toContain("more than maxProcesses (60)");
    await waitFor(() => (sh.state === "closed" ? true : undefined), { message: "the session closed" });
    await waitFor(() => (sessionMembers(pid).length === 0 ? true : undefined), {
      timeoutMs: 10_000,
      message: "no process of the bomb left",
    });
  });

  it("maxProcesses: Infinity turns the guard off; a swarm under the limit is left alone", async () => {
    const sh = await spawnBash({ maxProcesses: 500 });
    const r = await sh.run("(for i in $(seq 1 100); do sleep 30 & done); sleep 1.2; echo still-here");
    expect(r).toMatchObject({ status: "done", output: "still-here" });
    const off = await spawnBash({ maxProcesses: Infinity });
    expect((await off.run("(for i in $(seq 1 100); do sleep 30 & done); sleep 1.2; echo on")).output).toBe("on");
  });

  it("close() ends a swarm of 200 background processes started in one cell", async () => {
    const sh = await spawnBash({ closeGraceMs: 300 });
    const pid = sh.pid as number;
    const r = await sh.run("for i in $(seq 1 200); do sleep 1000 & done; echo spawned");
    expect(r.status).toBe("done");
    const sleepers = await waitFor(
      () => {
        const found = members(pid, "sleep");
        return found.length >= 200 ? found : undefined;
      },
      { timeoutMs: 10_000, message: "200 background sleeps" },
    );
    await sh.close();
    await allGone([pid, ...sleepers], 5_000);
    expect(sessionMembers(pid)).toEqual([]);
  });

  it("a shell that closes its own terminal descriptors settles the cell 'exited'", async () => {
    const sh = await spawnBash({ timeoutMs: 5_000 });
    const pid = sh.pid as number;
    const r = await sh.run("echo closing; exec 0<&- 1>&- 2>&-");
    expect(r.status).toBe("exited");
    expect(r.output).toBe("closing");
    await sh.close();
    await allGone([pid]);
  });

  it("a shell whose stdout goes to /dev/null still frames its cells (its prompt is on stderr), and close() ends it", async () => {
    const sh = await spawnBash({ timeoutMs: 3_000 });
    const pid = sh.pid as number;
    const r = await sh.run("exec >/dev/null");
    // The shell's prompt still reaches the terminal (on stderr); the cell must not hang past its timeout.
    expect(r.status).toBe("done");
    const next = await sh.run("echo to-stderr >&2", { timeoutMs: 3_000 });
    expect(next.status).toBe("done");
    expect(next.output).toBe("to-stderr");
    await sh.close();
    await allGone([pid]);
  });

  it("a program that detaches from the terminal and then exits settles the cell 'exited'", async () => {
    const sh = await spawnSession({ command: "python3", args: ["-q"], timeoutMs: 5_000 });
    const pid = sh.pid as number;
    const r = await sh.run("import os, sys; print('leaving', flush=True); os.close(0); os.close(1); os.close(2); os._exit(3)");
    expect(r.status).toBe("exited");
    expect(r.exitCode).toBe(3);
    expect(r.output).toBe("leaving");
    await allGone([pid]);
  });
});
