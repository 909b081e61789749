// Sessions on other machines through what you already use: ssh (one shared connection per host with
// ControlMaster), docker exec, kubectl exec. Every cell gets its exit code and cwd: the shell on the
// far side gets agent-tty's marks typed in-band at its first prompt.
//
// Run with: npm run build && node examples/remote.mjs me@host1 [me@host2 …] [-- extra ssh options]
//           AGENT_TTY_CONTAINER=web node examples/remote.mjs me@host1   (also a docker exec session)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "agent-tty";

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const hosts = split < 0 ? argv : argv.slice(0, split);
const sshOptions = split < 0 ? [] : argv.slice(split + 1);
if (hosts.length === 0) {
  console.error("usage: node examples/remote.mjs user@host [user@host …] [-- ssh options]");
  process.exit(2);
}

// ControlMaster: the first ssh to a host opens a connection the later ones (a second session, scp,
// git over ssh) reuse: no new handshake, no new authentication. The socket path must stay short.
const controlDir = mkdtempSync(join(tmpdir(), "att-ssh-"));
const control = ["-o", "ControlMaster=auto", "-o", `ControlPath=${controlDir}/%C`, "-o", "ControlPersist=60"];
const ssh = (host) => ["-tt", ...control, ...sshOptions, host];
const quote = (word) => `'${word.replace(/'/g, `'\\''`)}'`;

const manager = new SessionManager();
try {
  // 1. One session per host (here two per host: the second one rides on the first one's connection).
  await Promise.all(
    hosts.flatMap((host, index) => [
      manager.create(`h${index}-a`, { command: "ssh", args: ssh(host), label: host }),
      manager.create(`h${index}-b`, { command: "ssh", args: ssh(host), label: `${host} (shared connection)` }),
    ]),
  );
  const results = await Promise.all(
    manager.list().map(async (info) => [info, await manager.get(info.name).run("cd /tmp && echo $((6 * 7)) && (exit 3)")]),
  );
  for (const [info, r] of results) console.log(`${info.label}: output ${JSON.stringify(r.output)}, exit ${r.exitCode}, cwd ${r.cwd}`);

  // 2. Nested: a local bash whose cell runs ssh. The cell settles once the remote shell is ready,
  //    the next cells run over there, and `exit` comes back to the local framing.
  const local = await manager.create("local", { command: "bash", args: ["--norc", "--noprofile"] });
  const entered = await local.run(`ssh ${ssh(hosts[0]).map(quote).join(" ")}`);
  console.log(
    `entered: ${entered.nested?.entered?.name} (${entered.nested?.entered?.shell} on the far side), stack depth ${local.nested.length}`,
  );
  const remote = await local.run("cd / && false");
  console.log(`remote cell: exit ${remote.exitCode}, cwd ${remote.cwd}`);
  const left = await local.run("exit");
  console.log(`left: ${left.nested?.left?.[0]?.name} (${left.nested?.left?.[0]?.reason}), stack depth ${local.nested.length}`);

  // 3. A container: the same through docker exec (kubectl exec -it pod -- bash works the same way).
  const container = process.env.AGENT_TTY_CONTAINER;
  if (container) {
    const box = await manager.create("container", { command: "docker", args: ["exec", "-it", container, "sh"] });
    const r = await box.run("cd /etc && cat hostname");
    console.log(`container: ${JSON.stringify(r.output)}, exit ${r.exitCode}, cwd ${r.cwd}`);
  }
} finally {
  await manager.closeAll();
  for (const host of hosts) spawnSync("ssh", [...control, ...sshOptions, "-O", "exit", host], { stdio: "ignore" });
  rmSync(controlDir, { recursive: true, force: true });
}
