// The daemon's memory stays bounded whatever a cell prints (issue 14, item 0).
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { connect } from "node:net";
import { join } from "node:path";
import { alive, CliSandbox, waitFor } from "../helpers/cli.js";

const boxes: CliSandbox[] = [];
afterEach(async () => {
  for (const box of boxes.splice(0)) await box.cleanup();
});

/** Peak and current resident memory of a process, in MB (VmHWM / VmRSS). */
function memoryMb(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { peak: kb("VmHWM") / 1024, now: kb("VmRSS") / 1024 };
}

describe("daemon memory under floods", () => {
  // Before the fix: 40 MB of 'y' lines took the daemon from ~57 MB to a 549 MB peak; one 50 MB line to 2.3 GB.
  for (const [what, command] of [
    ["40 MB of identical lines", "yes | head -c 40M"],
    ["one 30 MB line", "head -c 30M /dev/zero | tr '\\0' x; echo"],
  ] as const) {
    it(`${what} raises the daemon's peak memory by less than 150 MB`, { timeout: 120_000 }, async () => {
      const box = new CliSandbox();
      boxes.push(box);
      expect((await box.k("new", "flood")).code).toBe(0);
      const pid = box.daemonPid() as number;
      const before = memoryMb(pid);
      const flood = await box.k("run", "-t", "100", "flood", command);
      expect(flood.code, flood.stderr).toBe(0);
      const after = memoryMb(pid);
      console.log(`daemon memory, ${what}: ${before.now.toFixed(0)} MB before, ${after.peak.toFixed(0)} MB peak`);
      expect(after.peak - before.now, `daemon RSS ${before.now.toFixed(0)} MB → peak ${after.peak.toFixed(0)} MB`).toBeLessThan(150);
    });
  }
});

describe("daemon input limits", () => {
  it("a 100 MB request line is refused with a reason, without the daemon's memory following it", { timeout: 60_000 }, async () => {
    const box = new CliSandbox();
    boxes.push(box);
    expect((await box.k("new", "s")).code).toBe(0);
    const pid = box.daemonPid() as number;
    const before = memoryMb(pid);
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(join(box.home, "daemon.sock"));
      let data = "";
      socket.setEncoding("utf8");
      socket.on("data", (d: string) => (data += d));
      socket.on("close", () => resolve(data));
      socket.on("error", () => undefined);
      const piece = "x".repeat(1 << 20);
      let sent = 0;
      const more = (): void => {
        while (sent < 100 && !socket.destroyed) {
          sent++;
          if (!socket.write(piece)) return void socket.once("drain", more);
        }
      };
      more();
    });
    expect(reply).toMatch(/request line longer than/);
    const after = memoryMb(pid);
    console.log(`daemon memory, 100 MB request line: ${before.now.toFixed(0)} MB before, ${after.peak.toFixed(0)} MB peak`);
    expect(after.peak - before.now).toBeLessThan(100);
    expect((await box.k("run", "s", "echo alive")).stdout).toContain("alive");
  });

  it("a connection that never finishes its request is dropped, and the daemon still exits when idle", { timeout: 60_000 }, async () => {
    const box = new CliSandbox({ AGENT_TTY_DAEMON_IDLE_MS: "1500" });
    boxes.push(box);
    expect((await box.k("ls")).code).toBe(0);
    const pid = box.daemonPid() as number;
    const socket = connect(join(box.home, "daemon.sock"));
    socket.on("error", () => undefined);
    socket.write('{"v": 1, "op": "ls"');
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    await closed;
    await waitFor(() => !alive(pid), 20_000);
  });
});

describe("daemon under a terminal query flood", () => {
  it("a session printing 100,000 cursor-position queries does not hold up the others", { timeout: 90_000 }, async () => {
    const box = new CliSandbox();
    boxes.push(box);
    expect((await box.k("new", "flood")).code).toBe(0);
    expect((await box.k("new", "calm")).code).toBe(0);
    expect((await box.k("fire", "flood", "for i in $(seq 100000); do printf '\\033[6n'; done; echo flood-done")).code).toBe(0);
    const started = performance.now();
    const run = await box.k("run", "calm", "echo calm-ok");
    const ls = await box.k("ls");
    const tookMs = performance.now() - started;
    console.log(`k run + k ls in another session during a query flood: ${tookMs.toFixed(0)} ms`);
    expect(run.stdout).toContain("calm-ok");
    expect(ls.stdout).toContain("flood");
    // Before: one synchronous terminal-mode check per query made these take 8-9 s and 6 s.
    expect(tookMs).toBeLessThan(5_000);
    await waitFor(async () => (await box.k("poll", "flood")).stdout.includes("flood-done"), 60_000);
  });
});
