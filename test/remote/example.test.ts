import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSshd, type PrivateSshd } from "../helpers/sshd.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let sshd: PrivateSshd;
beforeAll(async () => {
  sshd = await startSshd();
});
afterAll(async () => {
  await sshd?.stop();
});

it("examples/remote.mjs: sessions on a host sharing a ControlMaster connection, then ssh nested in a bash cell", async () => {
  // One host here (the private sshd): two ssh sessions sharing one connection, and the nested one.
  const { stdout } = await promisify(execFile)(process.execPath, ["examples/remote.mjs", sshd.destination, "--", ...sshd.options], {
    cwd: root,
    timeout: 60_000,
  });
  expect(stdout.match(/output "42", exit 3, cwd \/tmp/g)?.length).toBe(2);
  expect(stdout).toContain("(shared connection)");
  expect(stdout).toContain("entered: ssh (bash on the far side), stack depth 1");
  expect(stdout).toContain("remote cell: exit 1, cwd /");
  expect(stdout).toContain("left: ssh (exit), stack depth 0");
}, 90_000);
