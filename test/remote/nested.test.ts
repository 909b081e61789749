import { execFileSync } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seen, spawnBash } from "../helpers/sessions.js";
import { startSshd, type PrivateSshd } from "../helpers/sshd.js";

let sshd: PrivateSshd;
beforeAll(async () => {
  sshd = await startSshd();
});
afterAll(async () => {
  await sshd?.stop();
});

/** Quotes arguments for a bash command line. */
function shellLine(args: readonly string[]): string {
  return args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(" ");
}

describe("nested programs started by a cell", () => {
  it("ssh from a bash cell: the cell says ssh took over, the next cells run remotely with exit code and cwd, exit comes back", async () => {
    const sh = await spawnBash();
    const enter = await sh.run(`ssh -tt ${shellLine(sshd.sshArgs())}`);
    expect(enter.status).toBe("done");
    expect(enter.nested?.entered).toMatchObject({ name: "ssh", kind: "shell", shell: "bash", remote: true, depth: 1 });
    expect(enter.nested?.entered?.commandLine).toContain(`${sshd.user}@127.0.0.1`);
    expect(enter.nested?.entered?.pid).toBeGreaterThan(0);
    expect(sh.nested.map((program) => program.name)).toEqual(["ssh"]);
    expect(enter.output).not.toContain("agent_tty");

    const inside = await sh.run("cd /tmp && echo inside-remote && (exit 3)");
    expect(inside).toMatchObject({ status: "done", exitCode: 3, cwd: "/tmp", output: "inside-remote" });
    expect(await sh.run("echo $SSH_CONNECTION | wc -w")).toMatchObject({ output: "4", exitCode: 0 });

    const leave = await sh.run("exit");
    expect(leave.status).toBe("done");
    expect(leave.nested?.left?.[0]).toMatchObject({ name: "ssh", reason: "exit", exitCode: 0 });
    expect(leave.nested?.stack).toEqual([]);
    expect(sh.nested).toEqual([]);
    expect(await sh.run("echo back-${SSH_CONNECTION:-local}")).toMatchObject({ status: "done", exitCode: 0, output: "back-local" });
  });

  it("bash nested two deep, then back out one level at a time", async () => {
    const sh = await spawnBash();
    const first = await sh.run("cd /tmp && bash --norc");
    expect(first.nested?.entered).toMatchObject({ name: "bash", kind: "shell", shell: "bash", remote: false, depth: 1 });
    const second = await sh.run("bash --norc");
    expect(second.nested?.entered).toMatchObject({ name: "bash", depth: 2 });
    expect(second.nested?.stack.map((program) => program.depth)).toEqual([1, 2]);
    expect(await sh.run("echo level-$SHLVL; cd /; false")).toMatchObject({ status: "done", exitCode: 1, cwd: "/" });
    const shlvl = await sh.run("echo $SHLVL");
    expect(Number(shlvl.output)).toBeGreaterThanOrEqual(3);

    const out2 = await sh.run("exit 4");
    expect(out2.nested?.left?.map((program) => program.depth)).toEqual([2]);
    expect(out2).toMatchObject({ status: "done", exitCode: 4, cwd: "/tmp" });
    expect(sh.nested.length).toBe(1);
    const out1 = await sh.run("exit");
    expect(out1.nested?.left?.map((program) => program.depth)).toEqual([1]);
    expect(sh.nested).toEqual([]);
    expect(await sh.run("echo $SHLVL")).toMatchObject({ output: shlvl.output === "3" ? "1" : String(Number(shlvl.output) - 2) });
  });

  it("su to a login shell, then bash inside it: two deep, each level framed, each exit reported", async () => {
    const sh = await spawnBash();
    const su = await sh.run("su -");
    expect(su.status).toBe("done");
    expect(su.nested?.entered).toMatchObject({ kind: "shell", depth: 1, remote: false });
    expect(await sh.run("echo login-$HOME; cd /tmp")).toMatchObject({ status: "done", exitCode: 0, cwd: "/tmp" });
    const inner = await sh.run("bash --norc");
    expect(inner.nested?.entered).toMatchObject({ name: "bash", depth: 2 });
    expect(await sh.run("(exit 7)")).toMatchObject({ exitCode: 7, cwd: "/tmp" });
    expect((await sh.run("exit")).nested?.left?.map((program) => program.depth)).toEqual([2]);
    const back = await sh.run("exit");
    expect(back.nested?.left?.map((program) => program.depth)).toEqual([1]);
    expect(sh.nested).toEqual([]);
    expect(await sh.run("echo top")).toMatchObject({ output: "top", exitCode: 0 });
  });

  for (const shell of ["zsh", "fish", "dash"] as const) {
    it(`${shell} started from a bash cell is framed in-band (exit code, cwd, incomplete cells), and exit returns`, async () => {
      const sh = await spawnBash();
      const enter = await sh.run(shell === "dash" ? "dash -i" : `${shell} -i`);
      expect(enter.nested?.entered).toMatchObject({ name: shell, kind: "shell", shell: shell === "dash" ? "sh" : shell, depth: 1 });
      expect(await sh.run("cd /tmp; false")).toMatchObject({ status: "done", exitCode: 1, cwd: "/tmp" });
      expect(await sh.run("echo nested-$PWD")).toMatchObject({ status: "done", exitCode: 0, output: "nested-/tmp" });
      if (shell !== "dash") expect((await sh.run("echo 'unclosed")).output).toContain("incomplete");
      const leave = await sh.run("exit");
      expect(leave.nested?.left?.[0]).toMatchObject({ name: shell });
      expect(await sh.run("echo ${BASH_VERSION:+bash}")).toMatchObject({ output: "bash", exitCode: 0 });
    });
  }

  it("python3 started from a cell is driven by cells (prompt framing), and exit() returns to bash", async () => {
    const sh = await spawnBash();
    const enter = await sh.run("python3");
    expect(enter.nested?.entered).toMatchObject({ name: "python3", kind: "repl", depth: 1 });
    expect(await sh.run("x = 6 * 7")).toMatchObject({ status: "done", output: "" });
    expect(await sh.run("print(x)")).toMatchObject({ status: "done", output: "42" });
    expect(await sh.run("for i in range(3):\n    print(i * x)")).toMatchObject({ status: "done", output: "0\n42\n84" });
    const leave = await sh.run("exit()");
    expect(leave.nested?.left?.[0]).toMatchObject({ name: "python3", reason: "exit", exitCode: 0 });
    expect(await sh.run("echo back")).toMatchObject({ status: "done", exitCode: 0, output: "back" });
  });

  it("inside ssh (processes out of sight): python3 and a sub-shell are followed by their prompts, and left again", async () => {
    const sh = await spawnBash();
    expect((await sh.run(`ssh -tt ${shellLine(sshd.sshArgs())}`)).nested?.entered?.name).toBe("ssh");
    const python = await sh.run("python3");
    expect(python.nested?.entered).toMatchObject({ name: "python3", kind: "repl", pid: null, remote: true, depth: 2 });
    expect(await sh.run("print(6 * 7)")).toMatchObject({ status: "done", output: "42" });
    const leftPython = await sh.run("exit()");
    expect(leftPython.nested?.left?.[0]).toMatchObject({ name: "python3", depth: 2 });
    expect(leftPython.nested?.stack.map((program) => program.name)).toEqual(["ssh"]);
    const sub = await sh.run("bash --norc");
    expect(sub.nested?.entered).toMatchObject({ name: "bash", kind: "shell", shell: "bash", depth: 2, remote: true });
    expect(await sh.run("cd /tmp; (exit 9)")).toMatchObject({ exitCode: 9, cwd: "/tmp" });
    expect((await sh.run("exit")).nested?.left?.[0]).toMatchObject({ name: "bash", depth: 2 });
    expect((await sh.run("exit")).nested?.left?.[0]).toMatchObject({ name: "ssh", depth: 1 });
    expect(await sh.run("echo home")).toMatchObject({ output: "home", exitCode: 0 });
  });

  it("ssh asking a key's passphrase is not answered with the probe: the cell waits for input, and once answered the remote shell is entered", async () => {
    const key = join(sshd.dir, `passphrase_key_${process.pid}`);
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "open sesame", "-f", key]);
    appendFileSync(join(sshd.dir, "authorized_keys"), readFileSync(`${key}.pub`));
    const options = sshd.options.filter((option, index, all) => option !== "BatchMode=yes" && all[index + 1] !== "BatchMode=yes");
    const withKey = options.map((option, index) => (options[index - 1] === "-i" ? key : option));
    const sh = await spawnBash();
    const asked = await sh.run(`ssh -tt ${shellLine([...withKey, sshd.destination])}`, { untilInput: true });
    expect(asked.status).toBe("awaiting_input");
    expect(asked.output).toContain("Enter passphrase for key");
    sh.write("open sesame\r");
    const entered = await sh.wait();
    expect(entered.status).toBe("done");
    expect(entered.nested?.entered).toMatchObject({ name: "ssh", shell: "bash" });
    expect(await sh.run("echo ${SSH_CONNECTION:+remote}")).toMatchObject({ output: "remote", exitCode: 0 });
  });

  it("interrupting a cell inside nested ssh stops the remote command and keeps the connection (Ctrl-C typed, not SIGINT to ssh)", async () => {
    const sh = await spawnBash();
    await sh.run(`ssh -tt ${shellLine(sshd.sshArgs())}`);
    const cell = sh.fire("echo started; sleep 30");
    await seen(cell, "started");
    expect((await sh.interrupt())?.status).toBe("interrupted");
    expect(sh.nested.map((program) => program.name)).toEqual(["ssh"]);
    expect(await sh.run("echo ${SSH_CONNECTION:+still-remote}")).toMatchObject({ status: "done", exitCode: 0, output: "still-remote" });
  });

  it("a killed connection settles the running remote cell quickly and leaves the outer bash usable", async () => {
    const sh = await spawnBash();
    const enter = await sh.run(`ssh -tt ${shellLine(sshd.sshArgs())}`);
    expect(enter.nested?.entered?.name).toBe("ssh");
    const cell = sh.fire("echo started; sleep 60");
    await seen(cell, "started");
    const killedAt = performance.now();
    for (const pid of sshd.connectionPids()) process.kill(pid, "SIGKILL");
    const result = await cell.result;
    expect(performance.now() - killedAt).toBeLessThan(5_000);
    expect(result.status).toBe("done");
    expect(result.exitCode).toBe(255);
    expect(result.nested?.left?.[0]).toMatchObject({ name: "ssh", reason: "connection_lost" });
    expect(result.output).toContain("connection of");
    expect(sh.nested).toEqual([]);
    expect(await sh.run("echo outer-ok")).toMatchObject({ status: "done", exitCode: 0, output: "outer-ok" });
  });
});
