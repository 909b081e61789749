// Failures an outside fault and security probe found (issue 14), each reproduced first.
import { spawn as spawnChild } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it, onTestFinished } from "vitest";
import { Session, SessionManager } from "../../src/index.js";
import { isAlive, spawnBash, spawnSession, trackManager } from "../helpers/sessions.js";
import { expectInvalidArgument, sessionMembers } from "../helpers/processes.js";

describe("probe findings: durations past Node's timer limit", () => {
  it("a cell whose timeoutMs is 30 days runs to its end instead of timing out at once", async () => {
    const sh = await spawnBash();
    const thirtyDays = 30 * 24 * 3600 * 1000;
    const r = await sh.run("sleep 0.3; echo slept", { timeoutMs: thirtyDays });
    expect(r.status).toBe("done");
    expect(r.output).toBe("slept");
    expect(sh.state).toBe("idle");
  });

  it("a session-wide timeoutMs of 30 days is the default for its cells", async () => {
    const sh = await spawnBash({ timeoutMs: 30 * 24 * 3600 * 1000 });
    const r = await sh.run("sleep 0.3; echo slept");
    expect(r.status).toBe("done");
  });

  it("expect() with a 30-day timeout waits for its match", async () => {
    const sh = await spawnBash();
    const cell = sh.fire("sleep 0.3; echo ready-now");
    const match = await sh.expect("ready-now", { timeoutMs: 30 * 24 * 3600 * 1000 });
    expect(match.match).toBe("ready-now");
    await cell.result;
  });

  it("readyTimeoutMs and closeGraceMs past Node's timer limit are refused with the limit named", async () => {
    await expectInvalidArgument(() => Session.spawn({ readyTimeoutMs: 2 ** 31 }), "readyTimeoutMs", "2147483647");
    await expectInvalidArgument(() => Session.spawn({ closeGraceMs: 2 ** 31 }), "closeGraceMs", "2147483647");
  });
});

describe("probe findings: environment names and values", () => {
  it("an env name holding '=' is refused instead of setting another variable", async () => {
    await expectInvalidArgument(() => Session.spawn({ env: { "A=B": "1" } }), "env", "=");
  });

  it("an env value holding NUL is refused instead of being cut short", async () => {
    await expectInvalidArgument(() => Session.spawn({ env: { SECRET: "abc\0def" } }), "env.SECRET", "NUL");
  });

  it("an empty env name is refused", async () => {
    await expectInvalidArgument(() => Session.spawn({ env: { "": "1" } }), "env");
  });
});

describe("probe findings: close() after the program ended first", () => {
  for (const [how, end] of [
    ["exited by its own `exit`", async (sh: Session) => void (await sh.run("exit"))],
    [
      "was SIGKILLed",
      async (sh: Session) => {
        const exited = new Promise((resolve) => sh.once("exit", resolve));
        process.kill(sh.pid as number, "SIGKILL");
        await exited;
      },
    ],
  ] as const) {
    it(`leaves no background job running when the shell ${how}`, async () => {
      const sh = await spawnBash();
      const sid = sh.pid as number;
      const r = await sh.run("sleep 1000 & echo job=$!");
      const job = Number(/job=(\d+)/.exec(r.output)?.[1]);
      expect(isAlive(job)).toBe(true);
      await end(sh);
      expect(isAlive(job), "the job outlives its shell until close()").toBe(true);
      await sh.close();
      expect(isAlive(job)).toBe(false);
      expect(sessionMembers(sid).map((entry) => entry.pid)).toEqual([]);
    });
  }

  it("a SessionManager ends the jobs of a session whose shell exited, by closeAll() at the latest", async () => {
    const mgr = trackManager(new SessionManager());
    const sh = await mgr.create("w", { command: "bash", args: ["--norc", "--noprofile"] });
    const r = await sh.run("sleep 1000 & echo job=$!");
    const job = Number(/job=(\d+)/.exec(r.output)?.[1]);
    await sh.run("exit");
    await mgr.closeAll();
    expect(isAlive(job)).toBe(false);
  });
});

describe("probe findings: the frame secret", () => {
  it("fish's secret is on no process's command line or environment", async () => {
    // fish fills HOME with generated completions in the background: give it one of its own.
    const home = mkdtempSync(join(tmpdir(), "agent-tty-fish-home-"));
    onTestFinished(() => rmSync(home, { recursive: true, force: true, maxRetries: 10 }));
    const sh = await spawnSession({ command: "fish", env: { HOME: home } });
    const secret = /\x1b\]6973;([\w-]+);/.exec((await sh.run("echo hi")).raw)?.[1];
    expect(secret, "the mark carries a secret").toMatch(/^[\w-]{16,}$/);
    const seenIn: string[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      for (const file of ["cmdline", "environ"]) {
        try {
          if (readFileSync(`/proc/${entry}/${file}`, "latin1").includes(secret as string)) seenIn.push(`${entry}/${file}`);
        } catch {
          // gone, or not ours to read
        }
      }
    }
    expect(seenIn).toEqual([]);
    expect((await sh.run("echo still-framed")).output).toBe("still-framed");
  });
});

describe("probe findings: a driver killed while its shell starts", () => {
  it(
    "leaves its private rc directory (with the secret) only until the next agent-tty process starts a session",
    { timeout: 60_000 },
    async () => {
      const tmp = mkdtempSync(join(tmpdir(), "agent-tty-sweep-tmp-"));
      const slowHome = mkdtempSync(join(tmpdir(), "agent-tty-sweep-home-"));
      writeFileSync(join(slowHome, ".bashrc"), "sleep 31.7\n");
      onTestFinished(() => {
        for (const pid of processesRunning("sleep\u000031.7")) process.kill(pid, "SIGKILL");
        rmSync(tmp, { recursive: true, force: true });
        rmSync(slowHome, { recursive: true, force: true });
      });
      const dist = new URL("../../dist/index.js", import.meta.url).href;
      const driver = (home: string) =>
        spawnChild(
          process.execPath,
          [
            "--input-type=module",
            "-e",
            `const { Session } = await import(${JSON.stringify(dist)}); const s = await Session.spawn({ readyTimeoutMs: 60000 }); await s.close();`,
          ],
          {
            env: { ...process.env, TMPDIR: tmp, HOME: home },
            stdio: "ignore",
          },
        );
      const killed = driver(slowHome);
      const mine = () => readdirSync(tmp).filter((name) => name.startsWith(`agent-tty-${killed.pid}-`));
      await waitUntil(() => mine().length === 1 && readdirSync(join(tmp, mine()[0] as string)).length > 0, 20_000);
      const exited = new Promise((resolve) => killed.once("exit", resolve));
      killed.kill("SIGKILL");
      await exited;
      const left = join(tmp, mine()[0] as string);
      expect(readdirSync(left), "a killed driver cannot clean up after itself").not.toEqual([]);
      // Older than any start-up could take (a younger one may be another pid namespace's).
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(left, old, old);
      const next = driver(mkdtempSync(join(tmp, "home-")));
      const code = await new Promise((resolve) => next.once("exit", resolve));
      expect(code).toBe(0);
      expect(existsSync(left)).toBe(false);
    },
  );
});

describe("probe findings: terminal size", () => {
  it("resize() past a million cells is refused, and the largest allowed size keeps screen() small", async () => {
    const sh = await spawnBash();
    expect(() => sh.resize(10_000, 10_000)).toThrow(/at most 1000000 cells/);
    expect(() => sh.resize(10_000, 101)).toThrow(/cols.*rows/);
    expect(sh.cols).toBe(200);
    const before = process.memoryUsage().rss;
    sh.resize(10_000, 100);
    const screen = sh.screen();
    expect(screen).toContain("#");
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 2 ** 20);
    expect((await sh.run("echo fits")).output).toBe("fits");
  });

  it("Session.spawn with more than a million cells is refused before anything starts", async () => {
    await expectInvalidArgument(() => Session.spawn({ cols: 5_000, rows: 5_000 }), "cols", "rows");
  });
});

describe("probe findings: terminal queries", () => {
  it("a cell printing 20,000 cursor-position queries ends without holding the event loop", async () => {
    const sh = await spawnBash();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const r = await sh.run("for i in $(seq 20000); do printf '\\033[6n'; done; echo flood-done", { timeoutMs: 60_000 });
    delay.disable();
    const worstMs = delay.max / 1e6;
    console.log(`20,000 queries: cell ${r.durationMs} ms, event loop held at most ${worstMs.toFixed(1)} ms`);
    expect(r.status).toBe("done");
    expect(r.output).toContain("flood-done");
    // Before: one synchronous terminal-mode check per query, the loop held for seconds at a time.
    expect(worstMs).toBeLessThan(500);
    expect((await sh.run("echo after")).output).toBe("after");
  });

  it("a query printed by a python REPL cell is not answered into its next input line", async () => {
    const py = await spawnSession({ command: "python3", args: ["-q"] });
    const r = await py.run("print('\\x1b[6n', end='')", { timeoutMs: 10_000 });
    expect(r.status).toBe("done");
    const next = await py.run("print(6 * 7)", { timeoutMs: 10_000 });
    expect(next.status).toBe("done");
    expect(next.output).toBe("42");
  });

  it("a program that asks for the cursor position while reading raw still gets its answer", async () => {
    const py = await spawnSession({ command: "python3", args: ["-q"] });
    const code = [
      "import sys, tty, termios",
      "fd = sys.stdin.fileno(); old = termios.tcgetattr(fd); tty.setraw(fd)",
      "sys.stdout.write('\\x1b[6n'); sys.stdout.flush(); reply = b''",
      "while not reply.endswith(b'R'): reply += __import__('os').read(fd, 1)",
      "termios.tcsetattr(fd, termios.TCSADRAIN, old); print('reply-ok' if reply.startswith(b'\\x1b[') else reply)",
    ].join("\n");
    const r = await py.run(`exec(${JSON.stringify(code)})`, { timeoutMs: 10_000 });
    expect(r.status).toBe("done");
    expect(r.output).toContain("reply-ok");
  });
});

/** Pids whose command line contains `text` (arguments joined by NUL). */
function processesRunning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "latin1").includes(text)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
