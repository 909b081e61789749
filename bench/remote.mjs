// A cell over loopback ssh: agent-tty (in-band shell integration, exit code and cwd per cell)
// against a hand-written ssh + prompt loop on node-pty (a unique PS1, wait for it), both on the
// same login shell (the user's own PROMPT_COMMAND kept on both sides).
//
//   npm run bench:remote [-- --cells=200 --rounds=3]
//
// Starts a private sshd on 127.0.0.1 (generated keys, key-only, UsePAM no; needs openssh-server
// and root or a user sshd accepts), stopped at the end. Prints p50/p95 per contender and the ratio.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pty from "node-pty";
import { Session } from "../dist/index.js";

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const CELLS = arg("cells", 200);
const ROUNDS = arg("rounds", 3);

async function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startSshd() {
  const dir = mkdtempSync(join(tmpdir(), "agent-tty-bench-sshd-"));
  mkdirSync("/run/sshd", { recursive: true });
  for (const key of ["host_key", "client_key"]) execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, key)]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")), { mode: 0o600 });
  const port = await freePort();
  writeFileSync(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_key")}`,
      `PidFile ${join(dir, "pid")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "PermitRootLogin prohibit-password",
      "StrictModes no",
      "PrintMotd no",
      "PrintLastLog no",
      "UseDNS no",
      "LogLevel ERROR",
      "",
    ].join("\n"),
  );
  const child = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: "ignore" });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise((resolve) => {
      const s = connect({ port, host: "127.0.0.1" });
      s.once("data", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const args = [
    "-F",
    join(dir, "ssh_config_none"),
    "-i",
    join(dir, "client_key"),
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    `UserKnownHostsFile=${join(dir, "known_hosts")}`,
    "-o",
    "LogLevel=ERROR",
    "-p",
    String(port),
    "-tt",
    `${userInfo().username}@127.0.0.1`,
  ];
  writeFileSync(join(dir, "ssh_config_none"), "");
  return { args, stop: () => (child.kill("SIGKILL"), rmSync(dir, { recursive: true, force: true })) };
}

/** The hand-written loop: ssh on node-pty, a unique PS1, each cell waits for it. */
async function handLoop(sshArgs) {
  const term = pty.spawn("ssh", sshArgs, { cols: 120, rows: 40, env: process.env });
  let buffer = "";
  let waiter;
  term.onData((data) => {
    buffer += data;
    if (waiter !== undefined && buffer.includes(waiter.marker)) {
      const done = waiter;
      waiter = undefined;
      done.resolve(buffer);
    }
  });
  const until = (marker) => new Promise((resolve) => (waiter = { marker, resolve }));
  const marker = "HANDPROMPT-7f3a$ ";
  await new Promise((r) => setTimeout(r, 500));
  const ready = until(marker);
  // Quoted in two pieces: the echo of this line must not contain the marker.
  term.write(` PS1='HANDPROMPT''-7f3a$ '\r`);
  await ready;
  return {
    async run(code) {
      buffer = "";
      const done = until(marker);
      term.write(`${code}\r`);
      return done;
    },
    close: () => term.kill(),
  };
}

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

const sshd = await startSshd();
const times = { agent: [], hand: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    const sh = await Session.spawn({ command: "ssh", args: sshd.args });
    const hand = await handLoop(sshd.args);
    for (let i = 0; i < 10; i++) {
      await sh.run("echo hi");
      await hand.run("echo hi");
    }
    // Interleaved, cell by cell: both see the same machine load.
    for (let i = 0; i < CELLS; i++) {
      let t = performance.now();
      const r = await sh.run("echo hi");
      times.agent.push(performance.now() - t);
      if (r.output !== "hi" || r.exitCode !== 0) throw new Error(`agent-tty cell wrong: ${JSON.stringify(r)}`);
      t = performance.now();
      await hand.run("echo hi");
      times.hand.push(performance.now() - t);
    }
    await sh.close();
    hand.close();
  }
} finally {
  sshd.stop();
}
const row = (name, values) => `${name.padEnd(34)} p50 ${quantile(values, 0.5).toFixed(2)} ms   p95 ${quantile(values, 0.95).toFixed(2)} ms`;
console.log(`echo hi over loopback ssh, ${ROUNDS} x ${CELLS} cells`);
console.log(row("agent-tty (in-band, exit+cwd)", times.agent));
console.log(row("hand-written ssh + prompt loop", times.hand));
console.log(
  `ratio p50 ${(quantile(times.agent, 0.5) / quantile(times.hand, 0.5)).toFixed(2)}x   p95 ${(quantile(times.agent, 0.95) / quantile(times.hand, 0.95)).toFixed(2)}x`,
);
