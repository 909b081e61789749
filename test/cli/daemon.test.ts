import { chmodSync, chownSync, lchownSync, mkdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { connect, createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_TTY, alive, CliSandbox, waitFor } from "../helpers/cli.js";

const boxes: CliSandbox[] = [];

/** Sends one request line straight to the daemon's socket; resolves all it answers. */
function raw(box: CliSandbox, message: object): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(join(box.home, "daemon.sock"));
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (data += d));
    socket.on("end", () => resolve(data));
    socket.on("error", reject);
    socket.write(`${JSON.stringify(message)}\n`);
  });
}
function sandbox(env: NodeJS.ProcessEnv = {}): CliSandbox {
  const box = new CliSandbox(env);
  boxes.push(box);
  return box;
}
afterEach(async () => {
  for (const box of boxes.splice(0)) await box.cleanup();
});

describe("the session daemon", () => {
  it("starts on demand in a 0700 directory with a 0600 socket, and serves every later call", async () => {
    const box = sandbox();
    expect((await box.k("ls")).stdout).toBe("no sessions\n");
    expect(box.daemonPid()).toBeNull(); // asking does not start a daemon
    expect((await box.k("new", "a")).stdout).toBe("OK a\n");
    const pid = box.daemonPid();
    expect(pid).not.toBeNull();
    expect(statSync(box.home).mode & 0o777).toBe(0o700);
    expect(statSync(join(box.home, "daemon.sock")).mode & 0o777).toBe(0o600);
    expect((await box.k("new", "b")).stdout).toBe("OK b\n");
    expect(box.daemonPid()).toBe(pid);
    const status = await box.exec(AGENT_TTY, ["daemon", "status"]);
    expect(status.stdout).toMatch(new RegExp(`^OK agent-tty daemon pid=${pid} sessions=2 version=\\S+ protocol=1 home=`));
  });

  it("agent-tty daemon stop ends the daemon and its sessions; status then says not running", async () => {
    const box = sandbox();
    await box.k("new", "s");
    const pid = box.daemonPid() as number;
    expect((await box.exec(AGENT_TTY, ["daemon", "stop"])).stdout).toBe("OK daemon stopped\n");
    expect(alive(pid)).toBe(false);
    expect(box.daemonPid()).toBeNull();
    expect(await box.exec(AGENT_TTY, ["daemon", "status"])).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^agent-tty daemon not running/),
    });
    expect((await box.k("ls")).stdout).toBe("no sessions\n");
    expect((await box.exec(AGENT_TTY, ["daemon", "stop"])).stdout).toBe("OK daemon not running\n");
  });

  it("racing first calls start exactly one daemon", async () => {
    const box = sandbox();
    const names = ["r1", "r2", "r3", "r4"];
    const results = await Promise.all(names.map((n) => box.k("new", n)));
    for (const [i, ran] of results.entries()) expect(ran.stdout).toBe(`OK ${names[i]}\n`);
    const log = readFileSync(join(box.home, "daemon.log"), "utf8");
    expect(log.match(/listening on/g)).toHaveLength(1);
    const ls = (await box.k("ls")).stdout;
    for (const n of names) expect(ls).toMatch(new RegExp(`^${n} state=idle`, "m"));
  });

  it("replaces the stale socket and lock of a daemon that died", async () => {
    const box = sandbox();
    await box.k("new", "before");
    const dead = box.daemonPid() as number;
    process.kill(dead, "SIGKILL");
    await waitFor(() => !alive(dead));
    // The socket file and the lock naming the dead pid are still there.
    expect(statSync(join(box.home, "daemon.sock")).isSocket()).toBe(true);
    expect(box.daemonPid()).toBe(dead);
    expect((await box.k("ls")).stdout).toBe("no sessions\n");
    expect((await box.k("new", "after")).stdout).toBe("OK after\n");
    const pid = box.daemonPid();
    expect(pid).not.toBe(dead);
    expect((await box.k("run", "after", "echo fresh")).stdout).toBe("fresh\n");
  });

  it("treats a lock naming a live process that is no daemon (a reused pid) as stale", async () => {
    const box = sandbox();
    mkdirSync(box.home, { mode: 0o700 });
    writeFileSync(join(box.home, "daemon.lock"), `${process.pid}\n`);
    expect((await box.k("new", "reused")).stdout).toBe("OK reused\n");
    expect(box.daemonPid()).not.toBe(process.pid);
  });

  it("treats a lock naming another program with 'daemon' in its command line (dbus-daemon) as stale", async () => {
    const box = sandbox();
    mkdirSync(box.home, { mode: 0o700 });
    const other = spawn("bash", ["-c", "exec -a fake-dbus-daemon sleep 60"], { stdio: "ignore" });
    try {
      await waitFor(() => readFileSync(`/proc/${other.pid}/cmdline`, "utf8").startsWith("fake-dbus-daemon"));
      writeFileSync(join(box.home, "daemon.lock"), `${other.pid}\n`);
      const started = Date.now();
      expect((await box.k("new", "reused")).stdout).toBe("OK reused\n");
      expect(Date.now() - started, "k new waited on a lock held by another program").toBeLessThan(10_000);
      expect(box.daemonPid()).not.toBe(other.pid);
    } finally {
      other.kill("SIGKILL");
    }
  });

  it("an attach with a size the library refuses says why and leaves the session free for cells", async () => {
    const box = sandbox();
    await box.k("new", "s");
    const reply = JSON.parse((await raw(box, { v: 1, op: "attach", session: "s", cols: 20000, rows: 40 })).split("\n")[0] as string);
    expect(reply).toMatchObject({ ok: false, stdout: expect.stringMatching(/^ERR .*cols.*10000/) });
    const ran = await box.k("run", "s", "echo still-free");
    expect(ran.stdout).toContain("still-free");
  });

  it("gives clear errors when it cannot start", async () => {
    const box = sandbox();
    writeFileSync(join(box.dir, "file"), "");
    const onFile = await box.exec(AGENT_TTY, ["new", "x"], { env: { AGENT_TTY_HOME: join(box.dir, "file") } });
    expect(onFile).toMatchObject({ code: 1 });
    expect(onFile.stdout).toMatch(/^ERR .*file/);
    const longHome = join(box.dir, "x".repeat(120));
    const tooLong = await box.exec(AGENT_TTY, ["new", "x"], { env: { AGENT_TTY_HOME: longHome } });
    expect(tooLong.stdout).toMatch(/^ERR socket path .* is too long for a Unix socket; set AGENT_TTY_HOME to a shorter directory\n$/);
  });

  it("refuses a daemon directory other users can enter until a starting call repairs it", async () => {
    const box = sandbox();
    mkdirSync(box.home, { mode: 0o755 });
    chmodSync(box.home, 0o755);
    const ls = await box.k("ls");
    expect(ls.code).toBe(1);
    expect(ls.stdout).toMatch(/^ERR .* can be entered by other users/);
    expect((await box.k("new", "s")).stdout).toBe("OK s\n");
    expect(statSync(box.home).mode & 0o777).toBe(0o700);
  });

  it("refuses a daemon directory others could write, sending nothing to a planted socket and writing nothing through a planted log link", async () => {
    const box = sandbox();
    mkdirSync(box.home, { mode: 0o777 });
    chmodSync(box.home, 0o777);
    const victim = join(box.dir, "victim.txt");
    writeFileSync(victim, "precious\n");
    symlinkSync(victim, join(box.home, "daemon.log"));
    const received: string[] = [];
    const fake = createNetServer((socket) => socket.on("data", (d) => received.push(d.toString())));
    await new Promise<void>((resolve) => fake.listen(join(box.home, "daemon.sock"), resolve));
    try {
      const planted = process.getuid?.() === 0;
      if (planted) {
        // As another local user would have: their socket, their link (only root can hand files over).
        lchownSync(join(box.home, "daemon.log"), 65534, 65534);
        chownSync(join(box.home, "daemon.sock"), 65534, 65534);
      }
      const result = await box.k("new", "s");
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^ERR .* is writable by other users, so nothing in it can be trusted; remove it/);
      expect(received).toEqual([]);
      expect(readFileSync(victim, "utf8")).toBe("precious\n");
      expect(statSync(box.home).mode & 0o777, "not repaired: its contents stay untrusted").toBe(0o777);

      // Made private again by hand, what was planted is still refused.
      chmodSync(box.home, 0o700);
      const again = await box.k("new", "s");
      expect(again.code).toBe(1);
      expect(again.stdout).toMatch(/daemon\.log is a symbolic link; agent-tty follows no links in its directory/);
      unlinkSync(join(box.home, "daemon.log"));
      if (planted) {
        const theirs = await box.k("new", "s");
        expect(theirs.stdout).toMatch(/daemon\.sock belongs to uid 65534, not to you/);
      } else {
        console.log("not root: another user's socket cannot be planted here; the symlink half ran");
      }
      expect(received).toEqual([]);
      expect(readFileSync(victim, "utf8")).toBe("precious\n");
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
  });

  it("answers a client of another protocol version with an error naming the fix", async () => {
    const box = sandbox();
    await box.k("new", "s");
    const reply = await raw(box, { v: 99, op: "ls" });
    expect(JSON.parse(reply)).toMatchObject({
      ok: false,
      exit: 1,
      stdout: expect.stringMatching(/^ERR .*protocol 1.*agent-tty daemon stop/),
    });
  });

  it("a daemon of another version with no session steps down for a newer client's k new", async () => {
    const box = sandbox();
    expect((await box.exec(AGENT_TTY, ["daemon", "start"])).code).toBe(0);
    const old = box.daemonPid() as number;
    const reply = await raw(box, {
      v: 1,
      op: "new",
      session: "x",
      command: null,
      prompt: null,
      hook: null,
      label: null,
      description: null,
      cwd: box.dir,
      env: {},
      version: "0.0.0-other",
    });
    expect(JSON.parse(reply)).toMatchObject({ ok: false, restart: true });
    await waitFor(() => !alive(old));
    expect((await box.k("new", "fresh")).stdout).toBe("OK fresh\n");
    expect(box.daemonPid()).not.toBe(old);
  });

  it("exits by itself once idle with no session", async () => {
    const box = sandbox({ AGENT_TTY_DAEMON_IDLE_MS: "300" });
    await box.k("new", "brief");
    const pid = box.daemonPid() as number;
    await box.k("kill", "brief");
    await waitFor(() => !alive(pid), 10_000);
    expect(box.daemonPid()).toBeNull();
  });
});
