import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seen, spawnBash, spawnSession } from "../helpers/sessions.js";

/** The first container runtime that answers (a daemon running), if any: none here means these tests are skipped, not passed. */
function runtime(): string | undefined {
  for (const candidate of ["docker", "podman"]) {
    try {
      execFileSync(candidate, ["info"], { stdio: "ignore", timeout: 10_000 });
      return candidate;
    } catch {
      // not installed, or no daemon
    }
  }
  return undefined;
}

const engine = runtime();
/** The image the container runs (it must have bash); override with AGENT_TTY_TEST_IMAGE. */
const image = process.env["AGENT_TTY_TEST_IMAGE"] ?? "debian:stable-slim";

describe.skipIf(engine === undefined)(`sessions in a container (${engine ?? "no container runtime: skipped"} exec)`, () => {
  let container = "";
  beforeAll(() => {
    container = execFileSync(engine as string, ["run", "-d", "--rm", image, "sleep", "600"], { encoding: "utf8", timeout: 120_000 }).trim();
  }, 150_000);
  afterAll(() => {
    if (container !== "") execFileSync(engine as string, ["rm", "-f", container], { stdio: "ignore", timeout: 30_000 });
  });

  it("spawn over docker exec -it: exit codes and cwd per cell", async () => {
    const sh = await spawnSession({ command: engine as string, args: ["exec", "-it", container, "bash"] });
    expect(await sh.run("cd /tmp && echo in-container")).toMatchObject({
      status: "done",
      exitCode: 0,
      cwd: "/tmp",
      output: "in-container",
    });
    expect(await sh.run("false")).toMatchObject({ status: "done", exitCode: 1 });
  });

  it("docker exec from a bash cell, then back out", async () => {
    const sh = await spawnBash();
    const enter = await sh.run(`${engine} exec -it ${container} bash`);
    expect(enter.nested?.entered).toMatchObject({ name: engine, kind: "shell", shell: "bash", remote: true });
    expect(await sh.run("cd / && (exit 5)")).toMatchObject({ status: "done", exitCode: 5, cwd: "/" });
    const leave = await sh.run("exit");
    expect(leave.nested?.left?.[0]).toMatchObject({ name: engine, reason: "exit" });
    expect(await sh.run("echo outside")).toMatchObject({ output: "outside", exitCode: 0 });
  });

  it("a container killed mid-cell settles the cell and leaves the outer bash usable", async () => {
    const victim = execFileSync(engine as string, ["run", "-d", "--rm", image, "sleep", "600"], {
      encoding: "utf8",
      timeout: 120_000,
    }).trim();
    const sh = await spawnBash();
    await sh.run(`${engine} exec -it ${victim} bash`);
    const cell = sh.fire("echo started; sleep 60");
    await seen(cell, "started");
    execFileSync(engine as string, ["kill", victim], { stdio: "ignore", timeout: 30_000 });
    const result = await cell.result;
    expect(result.status).toBe("done");
    expect(result.nested?.left?.[0]?.name).toBe(engine);
    expect(await sh.run("echo outer-ok")).toMatchObject({ output: "outer-ok", exitCode: 0 });
  }, 60_000);
});
