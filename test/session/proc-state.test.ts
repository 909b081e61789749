import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ForegroundInfo,
  isForegroundReading,
  isLinuxProcAvailable,
  keptProcFilesFor,
  listSessionProcesses,
  readCommandLine,
  readForeground,
  systemTaskCount,
} from "../../src/pty/proc-state.js";
import { type RawPty, startPty } from "../helpers/raw-pty.js";
import { waitFor } from "../helpers/wait-for.js";

const PROMPT = "READY$ ";

async function bash(): Promise<RawPty> {
  const shell = startPty("bash", ["--norc", "--noprofile"], { env: { PS1: PROMPT } });
  await waitFor(() => shell.output().includes(PROMPT), { message: "bash prompt" });
  return shell;
}

/** Types `line` and waits until its echo (and so its Enter) came back. */
async function run(shell: RawPty, line: string): Promise<void> {
  const before = shell.output().length;
  shell.write(`${line}\r`);
  await waitFor(() => shell.output().slice(before).includes("\n"), { message: `echo of ${line}` });
}

function blockedIn(shell: RawPty, command: RegExp): () => ForegroundInfo | undefined {
  return () => {
    const info = readForeground(shell.pid);
    // The cheap check says the same of a program that waits for input.
    return info?.blockedOnTerminal === true && command.test(info.command) && isForegroundReading(shell.pid) ? info : undefined;
  };
}

/** Samples the foreground for a while; every sample must match (and the cheap check agree with it). */
async function holdsFor(shell: RawPty, check: (info: ForegroundInfo | undefined) => boolean): Promise<ForegroundInfo[]> {
  const samples: ForegroundInfo[] = [];
  for (let index = 0; index < 15; index++) {
    const info = readForeground(shell.pid);
    expect(check(info), JSON.stringify(info)).toBe(true);
    expect(isForegroundReading(shell.pid)).toBe(info?.blockedOnTerminal === true);
    if (info !== undefined) samples.push(info);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return samples;
}

const python = (code: string): string => `python3 -c ${JSON.stringify(code)}`;

describe.runIf(isLinuxProcAvailable())("readForeground", () => {
  it("bash waiting at its prompt is blocked on the terminal", async () => {
    const shell = await bash();
    const info = await waitFor(blockedIn(shell, /^bash$/));
    expect(info).toMatchObject({ pgid: shell.pid, pids: [shell.pid], state: "S" });
  });

  it("bash's read -p is blocked on the terminal", async () => {
    const shell = await bash();
    await run(shell, 'read -p "q? " x');
    await waitFor(() => shell.output().includes("q? "));
    await waitFor(blockedIn(shell, /^bash$/));
  });

  it("bash's silent read -s is blocked on the terminal", async () => {
    const shell = await bash();
    await run(shell, "read -s -p 'secret? ' x");
    await waitFor(() => shell.output().includes("secret? "));
    await waitFor(blockedIn(shell, /^bash$/));
  });

  it("python's input() is blocked on the terminal, with and without readline (pselect6)", async () => {
    const shell = await bash();
    await run(shell, python("input('name? ')"));
    const plain = await waitFor(blockedIn(shell, /^python/));
    expect(plain.pgid).not.toBe(shell.pid);
    shell.write("\x03");
    await waitFor(blockedIn(shell, /^bash$/));
    await run(shell, python("import readline; input('name? ')"));
    await waitFor(blockedIn(shell, /^python/));
  });

  it("node's REPL waiting in epoll is blocked on the terminal", async () => {
    const shell = await bash();
    await run(shell, "node");
    await waitFor(blockedIn(shell, /^node$/), { timeoutMs: 10_000 });
  });

  it("a read of /dev/tty is blocked on the terminal", async () => {
    const shell = await bash();
    await run(shell, "bash -c 'read x < /dev/tty'");
    await waitFor(() => {
      const info = readForeground(shell.pid);
      return info !== undefined && info.pgid !== shell.pid && info.blockedOnTerminal;
    });
  });

  it("a busy loop in the shell is not blocked on the terminal", async () => {
    const shell = await bash();
    await run(shell, "while :; do :; done");
    await waitFor(() => readForeground(shell.pid)?.state === "R");
    await holdsFor(shell, (info) => info?.command === "bash" && !info.blockedOnTerminal);
  });

  it("sleep is sleeping but not on the terminal", async () => {
    const shell = await bash();
    await run(shell, "sleep 5");
    // Just after exec, sleep may still be running its start-up (state R) on a loaded machine.
    await waitFor(() => {
      const info = readForeground(shell.pid);
      return info?.command === "sleep" && info.state === "S";
    });
    const samples = await holdsFor(shell, (info) => info?.command === "sleep" && !info.blockedOnTerminal);
    expect(samples.map((info) => info.state)).toEqual(samples.map(() => "S"));
  });

  it("a pipeline reading a pipe is not blocked on the terminal, and lists all its processes", async () => {
    const shell = await bash();
    await run(shell, "sleep 5 | cat");
    const info = await waitFor(() => {
      const current = readForeground(shell.pid);
      return current?.pids.length === 2 ? current : undefined;
    });
    expect(info.command).toBe("sleep");
    await holdsFor(shell, (sample) => sample?.pids.length === 2 && !sample.blockedOnTerminal);
  });

  it.each([
    { kind: "select", wait: "select.select([r], [], [])" },
    { kind: "poll", wait: "p = select.poll(); p.register(r, select.POLLIN); p.poll()" },
    { kind: "epoll", wait: "p = select.epoll(); p.register(r, select.EPOLLIN); p.poll()" },
  ])("$kind on a pipe is not blocked on the terminal, on stdin it is", async ({ wait }) => {
    const shell = await bash();
    await run(shell, python(`import os, select; r, w = os.pipe(); print('waiting', flush=True); ${wait}`));
    await waitFor(() => readForeground(shell.pid)?.command.startsWith("python") && shell.output().includes("waiting\r\n"));
    await holdsFor(shell, (info) => info?.command.startsWith("python") === true && !info.blockedOnTerminal);
    shell.write("\x03");
    await waitFor(blockedIn(shell, /^bash$/));
    await run(shell, python(`import os, select; r = 0; ${wait}`));
    await waitFor(blockedIn(shell, /^python/));
  });

  it("a reader that is not its group's leader is found: the last process of a pipeline reading /dev/tty", async () => {
    const shell = await bash();
    await run(shell, "sleep 30 | bash -c 'read x < /dev/tty'");
    const info = await waitFor(() => {
      const current = readForeground(shell.pid);
      // Under load the reader can be up before the leader, forked by bash, has become sleep.
      const leaderIsSleep = current !== undefined && readCommandLine(current.pgid)[0] === "sleep";
      return current?.pids.length === 2 && current.blockedOnTerminal && leaderIsSleep ? current : undefined;
    });
    // The group's leader is sleep (not reading): the reader is the other member.
    expect(info.command).toBe("bash");
    expect(isForegroundReading(shell.pid)).toBe(true);
  });

  it("a program seen reading its terminal, then reading a pipe put in its place (dup2 onto stdin), is not blocked on the terminal", async () => {
    const shell = await bash();
    await run(shell, python("import os; input('first? '); r, w = os.pipe(); os.dup2(r, 0); print('switched', flush=True); os.read(0, 1)"));
    // Seen reading the terminal on stdin first: what stdin is must be looked at again, not remembered.
    await waitFor(blockedIn(shell, /^python/));
    shell.write("\r");
    await waitFor(() => shell.output().includes("switched\r\n") && readForeground(shell.pid)?.state === "S");
    await holdsFor(shell, (info) => info?.command.startsWith("python") === true && !info.blockedOnTerminal);
  });

  it("a program that replaced itself (exec, same pid) is checked anew: its select on a pipe is not blocked on the terminal", async () => {
    const shell = await bash();
    // Checked at its prompt (bash waits in pselect6: its memory is read for the descriptor set), and
    // checked on through the exec, as a running cell is, so what the checks keep open stays open.
    await waitFor(blockedIn(shell, /^bash$/));
    const checks = setInterval(() => isForegroundReading(shell.pid), 5);
    try {
      // The interpreter itself (not a launcher script that starts other processes first).
      const interpreter = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
      const code = "import os, select; r, w = os.pipe(); os.dup2(r, 5); print('waiting', flush=True); select.select([5], [], [])";
      await run(shell, `exec ${interpreter} -c ${JSON.stringify(code)}`);
      // In select (x64 23 or pselect6 270, arm64 72), read without the checks' kept descriptors.
      await waitFor(
        () => shell.output().includes("waiting\r\n") && /^(23|270|72) 0x6 /.test(readFileSync(`/proc/${shell.pid}/syscall`, "utf8")),
      );
      expect(readCommandLine(shell.pid)[0]).toMatch(/python3?$/);
      for (let index = 0; index < 10; index++) {
        expect(isForegroundReading(shell.pid)).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      clearInterval(checks);
    }
  });

  it("a program whose command name holds spaces and parentheses is read whole: its name, group and state", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-tty-comm-"));
    try {
      const copy = join(dir, "b) (a sh");
      copyFileSync("/bin/bash", copy);
      chmodSync(copy, 0o755);
      const shell = startPty(copy, ["--norc", "--noprofile"], { env: { PS1: PROMPT } });
      await waitFor(() => shell.output().includes(PROMPT), { message: "the copy's prompt" });
      const info = await waitFor(blockedIn(shell, /^b\) \(a sh$/));
      expect(info).toMatchObject({ pgid: shell.pid, pids: [shell.pid], state: "S" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("returns undefined for a process that is gone", async () => {
    const shell = startPty("true", []);
    await shell.exited;
    await waitFor(() => readForeground(shell.pid) === undefined);
    expect(readForeground(-1)).toBeUndefined();
    expect(readForeground(Number.NaN)).toBeUndefined();
    expect(isForegroundReading(shell.pid)).toBe(false);
    expect(isForegroundReading(-1)).toBe(false);
  });
});

/** The /proc files of `pid` this process holds open (the checks' kept descriptors). */
function heldProcFiles(pid: number): string[] {
  const held: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`/proc/${pid}/`)) held.push(target);
    } catch {
      // closed meanwhile (readdir's own descriptor)
    }
  }
  return held;
}

describe.runIf(isLinuxProcAvailable())("isForegroundReading's kept descriptors", () => {
  it("stay open for many programs checked in turn (more than the first 8), bounded by the open-file limit", async () => {
    // 70 shells: the checks of the first 20 hold 80 descriptors, more than a small cache would keep.
    const shells = await Promise.all(Array.from({ length: 70 }, () => bash()));
    const first = shells.slice(0, 20);
    for (const shell of first) await waitFor(() => isForegroundReading(shell.pid), { message: `shell ${shell.pid} at its prompt` });
    // Checked again, one after the other: each still holds its files (none was closed to make room).
    for (const shell of first) {
      expect(isForegroundReading(shell.pid)).toBe(true);
      expect(heldProcFiles(shell.pid).length).toBeGreaterThanOrEqual(3);
    }
    for (const shell of first) expect(heldProcFiles(shell.pid).length, `shell ${shell.pid}`).toBeGreaterThanOrEqual(3);
    // All 70, twice: the answers stay right when the oldest descriptors make room, and what is held stays bounded.
    for (let round = 0; round < 2; round++) {
      for (const shell of shells) await waitFor(() => isForegroundReading(shell.pid), { message: `shell ${shell.pid}, round ${round}` });
    }
    const held = shells.reduce((sum, shell) => sum + heldProcFiles(shell.pid).length, 0);
    expect(held).toBeGreaterThan(32);
    const softLimit = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    expect(held).toBeLessThanOrEqual(keptProcFilesFor(softLimit));
    // A program that stops reading is seen at once, its kept descriptors notwithstanding.
    const last = shells[shells.length - 1];
    if (last === undefined) throw new Error("no shell");
    await run(last, "sleep 30");
    await waitFor(() => !isForegroundReading(last.pid), { message: "sleep in the foreground" });
  }, 30_000);

  it("are a quarter of the open-file limit, 64 to 1024 (256 when the limit is unknown)", () => {
    expect(keptProcFilesFor("1024")).toBe(256);
    expect(keptProcFilesFor("20000")).toBe(1024);
    expect(keptProcFilesFor("100")).toBe(64);
    expect(keptProcFilesFor(undefined)).toBe(256);
  });
});

describe.runIf(isLinuxProcAvailable())("listSessionProcesses", () => {
  it("lists the shell, its background jobs and its foreground processes", async () => {
    const shell = await bash();
    await run(shell, "sleep 30 & sleep 31 | cat");
    const pids = await waitFor(() => {
      const found = listSessionProcesses(shell.pid);
      return found.length >= 4 ? found : undefined;
    });
    expect(pids).toContain(shell.pid);
    expect(pids).toEqual([...pids].sort((a, b) => a - b));
    expect(listSessionProcesses(process.pid)).not.toContain(shell.pid);
  });

  it("systemTaskCount bounds any session's process count: it counts every task of the system, threads included", async () => {
    const shell = await bash();
    await run(shell, "sleep 30 & sleep 31 &");
    const pids = await waitFor(() => {
      const found = listSessionProcesses(shell.pid);
      return found.length >= 3 ? found : undefined;
    });
    const count = systemTaskCount();
    expect(count).toBeGreaterThanOrEqual(pids.length);
    expect(count).toBeGreaterThanOrEqual(readdirSync("/proc/self/task").length);
  });

  it("finds a session whose program's name looks like the fields after it (read past the name's last parenthesis)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-tty-comm-"));
    try {
      const copy = join(dir, "x) S 1 2 3 4 ");
      copyFileSync("/bin/bash", copy);
      chmodSync(copy, 0o755);
      const shell = startPty(copy, ["--norc", "--noprofile"], { env: { PS1: PROMPT } });
      await waitFor(() => shell.output().includes(PROMPT), { message: "the copy's prompt" });
      expect(listSessionProcesses(shell.pid)).toEqual([shell.pid]);
      expect(listSessionProcesses(3)).not.toContain(shell.pid);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("returns nothing for a session that does not exist", () => {
    expect(listSessionProcesses(0)).toEqual([]);
    expect(listSessionProcesses(2 ** 31)).toEqual([]);
  });
});

it("isLinuxProcAvailable is true exactly on Linux with /proc", () => {
  expect(isLinuxProcAvailable()).toBe(process.platform === "linux");
});
