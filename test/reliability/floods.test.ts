import { describe, expect, it } from "vitest";
import { spawnBash } from "../helpers/sessions.js";
import { sampleMemory } from "../helpers/processes.js";

/**
 * Size of the big flood. Measured on the 2-core CI box: 1 GB moves through a
 * PTY and the session at 20-27 MB/s (36 s alone, 47-50 s with the rest of
 * the suite running beside it), inside the ~60 s budget, so the full
 * gigabyte is the default; AGENT_TTY_FLOOD_MB lowers it for a quick local run.
 */
const FLOOD_MB = Number(process.env["AGENT_TTY_FLOOD_MB"] ?? 1000);
/** Growth of this process's memory allowed during a flood, whatever its size. */
const MEMORY_BUDGET_MB = 150;
const MARKER = /\n\[… (\d+) bytes omitted …\]\n/;

/** The numbered 100-byte line `n` of the flood (99 digits + newline). */
function floodLine(n: number): string {
  return String(n).padStart(99, "0");
}

/** Checks that `lines` are the flood's lines `first`, `first + 1`, … and returns the number after the last. */
function expectConsecutive(lines: string[], first: number): number {
  let expected = first;
  for (const line of lines) {
    if (line !== floodLine(expected)) {
      throw new Error(`flood line ${expected} came back as ${JSON.stringify(line.slice(0, 120))}`);
    }
    expected++;
  }
  return expected;
}

describe("floods", () => {
  it(`a ${FLOOD_MB} MB flood through one cell keeps memory bounded, keeps the exact head and tail, counts the omitted bytes and leaves the session usable`, async () => {
    const sh = await spawnBash({ timeoutMs: 240_000 });
    const lineCount = FLOOD_MB * 10_000;
    const totalBytes = lineCount * 100;
    const memory = sampleMemory();
    const started = performance.now();
    const r = await sh.run(`seq -f '%099.0f' 1 ${lineCount}`);
    const seconds = (performance.now() - started) / 1000;
    const grew = memory.stop();
    console.log(
      `[flood] ${FLOOD_MB} MB in ${seconds.toFixed(1)} s (${(FLOOD_MB / seconds).toFixed(1)} MB/s); ` +
        `peak growth: rss +${grew.rssGrowthMb} MB, heapUsed +${grew.heapGrowthMb} MB`,
    );

    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.truncated).toBe(true);
    const marker = MARKER.exec(r.output);
    expect(marker, "the truncation marker is one line between head and tail").not.toBeNull();
    expect(Number(marker?.[1])).toBe(r.omittedBytes);
    const head = r.output.slice(0, marker?.index);
    const tail = r.output.slice((marker?.index ?? 0) + (marker?.[0].length ?? 0));
    // Head and tail are whole lines of the flood, in order, from its very first to its very last line.
    const afterHead = expectConsecutive(head.split("\n"), 1);
    const tailLines = tail.split("\n");
    const firstTail = lineCount - tailLines.length + 1;
    expect(expectConsecutive(tailLines, firstTail)).toBe(lineCount + 1);
    // Nothing lost silently: what is missing is exactly the lines between, and it is said.
    expect(r.omittedBytes).toBe((firstTail - afterHead) * 100);
    expect(Buffer.byteLength(head) + 1 + Buffer.byteLength(tail) + 1 + r.omittedBytes).toBe(totalBytes);
    expect(Buffer.byteLength(head) + Buffer.byteLength(tail)).toBeLessThanOrEqual(1 << 20);
    expect(Buffer.byteLength(head)).toBeGreaterThan(400_000);
    expect(Buffer.byteLength(tail)).toBeGreaterThan(400_000);
    expect(r.rawOmittedBytes).toBeGreaterThan(0);
    expect(Buffer.byteLength(r.raw)).toBeLessThanOrEqual((1 << 20) + 100);

    expect(grew.rssGrowthMb).toBeLessThan(MEMORY_BUDGET_MB);
    expect(grew.heapGrowthMb).toBeLessThan(MEMORY_BUDGET_MB);

    const after = await sh.run("echo still-here; pwd", { timeoutMs: 10_000 });
    expect(after.status).toBe("done");
    expect(after.output).toBe(`still-here\n${process.cwd()}`);
    expect(sh.history(3)).toContain("still-here");
  }, 300_000);

  it("one 5 MB line without a newline comes back whole when the cap allows it, with memory bounded", async () => {
    const sh = await spawnBash({ maxOutputBytes: 8 << 20 });
    const memory = sampleMemory();
    const r = await sh.run("head -c 5000000 /dev/zero | tr '\\0' y");
    const grew = memory.stop();
    console.log(`[5 MB line, 8 MB cap] peak growth: rss +${grew.rssGrowthMb} MB, heapUsed +${grew.heapGrowthMb} MB`);
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.truncated).toBe(false);
    expect(r.omittedBytes).toBe(0);
    expect(r.output.length).toBe(5_000_000);
    expect(/^y+$/.test(r.output)).toBe(true);
    expect(grew.rssGrowthMb).toBeLessThan(MEMORY_BUDGET_MB);
    const after = await sh.run("echo next");
    expect(after.output).toBe("next");
  });

  it("one 5 MB line without a newline under the default cap is cut with the marker and an exact omitted count", async () => {
    const sh = await spawnBash();
    const memory = sampleMemory();
    const r = await sh.run("head -c 5000000 /dev/zero | tr '\\0' y");
    const grew = memory.stop();
    console.log(`[5 MB line, default cap] peak growth: rss +${grew.rssGrowthMb} MB, heapUsed +${grew.heapGrowthMb} MB`);
    expect(r.status).toBe("done");
    expect(r.truncated).toBe(true);
    const marker = MARKER.exec(r.output);
    expect(marker).not.toBeNull();
    expect(Number(marker?.[1])).toBe(r.omittedBytes);
    const head = r.output.slice(0, marker?.index);
    const tail = r.output.slice((marker?.index ?? 0) + (marker?.[0].length ?? 0));
    expect(/^y+$/.test(head)).toBe(true);
    expect(/^y+$/.test(tail)).toBe(true);
    expect(head.length + tail.length + r.omittedBytes).toBe(5_000_000);
    expect(head.length + tail.length).toBeLessThanOrEqual(1 << 20);
    expect(grew.rssGrowthMb).toBeLessThan(MEMORY_BUDGET_MB);
    const after = await sh.run("echo next");
    expect(after.output).toBe("next");
  });

  it("a storm of 100,000 carriage-return redraws collapses to the final state of the line", async () => {
    const sh = await spawnBash();
    const r = await sh.run(`awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "\\rprogress %6d/100000", i; print "" }'`);
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe("progress 100000/100000");
    expect(r.truncated).toBe(false);
    expect(sh.history(2)).toBe(
      `awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "\\rprogress %6d/100000", i; print "" }'\nprogress 100000/100000`,
    );
  });

  it("progress bars redrawn with \\r, erase-line and backspaces keep only what the screen finally showed, line by line", async () => {
    const sh = await spawnBash();
    // Ten bars of 10,000 redraws each; each redraw erases the line (ESC[2K) and a spinner backspaces over itself.
    const script = [
      "BEGIN { for (b = 1; b <= 10; b++) {",
      '  for (i = 0; i <= 10000; i++) printf "\\r\\033[2Kbar %d: %d%% %s\\b", b, i / 100, substr("|/-\\\\", i % 4 + 1, 1);',
      '  printf "\\r\\033[2Kbar %d: done\\n", b',
      "} }",
    ].join(" ");
    const r = await sh.run(`awk '${script}'`);
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(Array.from({ length: 10 }, (_, index) => `bar ${index + 1}: done`).join("\n"));
  });
});
