import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { recordRaw, seen, spawnSession } from "../helpers/sessions.js";
import { startSshd, type PrivateSshd } from "../helpers/sshd.js";

let sshd: PrivateSshd;
beforeAll(async () => {
  sshd = await startSshd();
});
afterAll(async () => {
  await sshd?.stop();
});

describe("a session spawned over ssh (in-band shell integration)", () => {
  it("gives every cell its exit code and cwd, with auto picking in-band integration for ssh", async () => {
    const sh = await spawnSession({ command: "ssh", args: sshd.sshArgs("-tt") });
    expect(sh.detector.name).toBe("shell-integration");
    const first = await sh.run("cd /tmp && echo remote-$((6*7))");
    expect(first).toMatchObject({ status: "done", exitCode: 0, cwd: "/tmp", output: "remote-42" });
    const failed = await sh.run("false");
    expect(failed).toMatchObject({ status: "done", exitCode: 1, cwd: "/tmp", output: "" });
    const multi = await sh.run("for i in 1 2 3\ndo echo n$i\ndone");
    expect(multi).toMatchObject({ status: "done", exitCode: 0, output: "n1\nn2\nn3" });
  });

  it("keeps the bootstrap (and its secret) out of the transcript and cell output, and ignores imitation marks", async () => {
    const sh = await spawnSession({ command: "ssh", args: sshd.sshArgs("-tt") });
    const prefix = sh.detector.markPrefix as string;
    const r = await sh.run("echo hello");
    expect(r.output).toBe("hello");
    expect(sh.history()).not.toContain("agent_tty");
    expect(sh.history()).not.toContain(prefix.split(";")[1]);
    // A program printing a mark without the secret does not end the frame.
    const fake = await sh.run(
      "printf '\\033]6973;0123456789abcdef01234567;D;0;/fake\\007\\033]6973;0123456789abcdef01234567;B\\007'; sleep 0.3; echo after",
    );
    expect(fake).toMatchObject({ status: "done", exitCode: 0, output: "after" });
  });

  it("types exactly one Enter per cell (no repeat-enter)", async () => {
    const sh = await spawnSession({ command: "ssh", args: sshd.sshArgs("-tt") });
    const raw = recordRaw(sh);
    // Every Enter draws a prompt (each opens with a status mark, bash's only prompt mark): one cell, one prompt.
    const before = raw.text().length;
    const r = await sh.run("echo one");
    expect(r.output).toBe("one");
    const after = raw.text().slice(before);
    const prompts = after.split(`${sh.detector.markPrefix}D;`).length - 1;
    expect(prompts).toBe(1);
  });

  it("a remote cell that asks a question settles awaiting_input (also through a shared ControlMaster connection, never seen reading)", async () => {
    const control = ["-o", "ControlMaster=auto", "-o", `ControlPath=${sshd.dir}/cm-%C`, "-o", "ControlPersist=5"];
    const master = await spawnSession({ command: "ssh", args: sshd.sshArgs("-tt", ...control) });
    const shared = await spawnSession({ command: "ssh", args: sshd.sshArgs("-tt", ...control) });
    for (const sh of [master, shared]) {
      const asked = await sh.run("read -p 'name? ' x; echo hi $x", { untilInput: true });
      expect(asked.status).toBe("awaiting_input");
      expect(asked.output).toContain("name? ");
      sh.write("ada\r");
      expect(await sh.wait()).toMatchObject({ status: "done", exitCode: 0, output: "name? ada\nhi ada" });
    }
    await shared.close();
    await master.close();
    execFileSync("ssh", [...sshd.sshArgs(...control).slice(0, -1), "-O", "exit", sshd.destination], { stdio: "ignore" });
  });

  it("reports an incomplete cell and cancels it, as locally", async () => {
    const sh = await spawnSession({ command: "ssh", args: sshd.sshArgs("-tt") });
    const r = await sh.run("echo 'unclosed");
    expect(r.status).toBe("done");
    expect(r.output).toContain("incomplete");
    expect((await sh.run("echo fine")).output).toBe("fine");
  });

  it("interrupts a remote command by typing Ctrl-C (ssh stays connected)", async () => {
    const sh = await spawnSession({ command: "ssh", args: sshd.sshArgs("-tt") });
    const cell = sh.fire("echo started; sleep 30");
    await seen(cell, "started");
    const stopped = await sh.interrupt();
    expect(stopped?.status).toBe("interrupted");
    expect(await cell.result).toMatchObject({ status: "interrupted" });
    expect(await sh.run("echo still-here")).toMatchObject({ status: "done", output: "still-here", exitCode: 0 });
  });

  it("an explicit inBand option frames a shell behind any other program (env here), not only ssh", async () => {
    const sh = await spawnSession({
      command: "env",
      args: ["bash", "--norc", "--noprofile"],
      detector: detectors.shellIntegration({ inBand: true }),
    });
    expect(await sh.run("cd / && (exit 6)")).toMatchObject({ status: "done", exitCode: 6, cwd: "/" });
    expect(sh.history()).not.toContain("printf");
  });

  it("20 interrupts in a row over ssh each stop their command, and the next cell always runs whole", async () => {
    const sh = await spawnSession({ command: "ssh", args: sshd.sshArgs("-tt") });
    for (let round = 0; round < 20; round++) {
      const cell = sh.fire("echo started; sleep 30");
      await seen(cell, "started");
      expect((await sh.interrupt())?.status).toBe("interrupted");
      expect(await sh.run(`echo ok-${round}`)).toMatchObject({ status: "done", exitCode: 0, output: `ok-${round}` });
    }
  }, 90_000);

  const versionOf = {
    zsh: ["echo $ZSH_VERSION", /^\d+\.\d+/],
    fish: ["echo $FISH_VERSION", /^\d+\.\d+/],
    dash: ["echo x${BASH_VERSION}${ZSH_VERSION}x", /^xx$/],
  } as const;
  for (const shell of ["zsh", "fish", "dash"] as const) {
    it(`detects ${shell} on the far side and frames it the same way`, async () => {
      const sh = await spawnSession({
        command: "ssh",
        args: [...sshd.sshArgs("-tt"), "exec", shell, ...(shell === "dash" ? ["-i"] : ["-l"])],
        detector: detectors.shellIntegration({ inBand: true }),
      });
      const r = await sh.run("cd /tmp && echo in-$PWD");
      expect(r).toMatchObject({ status: "done", exitCode: 0, cwd: "/tmp", output: "in-/tmp" });
      expect(await sh.run("false")).toMatchObject({ status: "done", exitCode: 1 });
      const [probe, answer] = versionOf[shell];
      expect((await sh.run(probe)).output).toMatch(answer);
    });
  }

  it("settles the running cell within a bounded time when the connection is killed", async () => {
    const sh = await spawnSession({ command: "ssh", args: sshd.sshArgs("-tt") });
    expect((await sh.run("echo up")).output).toBe("up");
    const cell = sh.fire("echo started; sleep 60");
    await seen(cell, "started");
    const started = performance.now();
    for (const pid of sshd.connectionPids()) process.kill(pid, "SIGKILL");
    const result = await cell.result;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.status).toBe("exited");
    expect(result.exitCode).toBe(255);
  });
});
