// The daemon's memory stays bounded whatever a cell prints (issue 14, item 0).
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CliSandbox } from "./helpers.js";

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
