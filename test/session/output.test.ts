import { describe, expect, it } from "vitest";
import { spawnBash } from "../helpers/sessions.js";

const MARKER = /^\[… (\d+) bytes omitted …\]$/;

/** Bytes of `seq 1 n` output, newlines included. */
function seqBytes(n: number): number {
  let total = 0;
  for (let k = 1; k <= n; k++) total += String(k).length + 1;
  return total;
}

describe("output truncation keeps head and tail", () => {
  it("seq 1 200000 with a small maxOutputBytes: truncated, omittedBytes, head, tail and one marker line", async () => {
    const maxOutputBytes = 4_096;
    const sh = await spawnBash({ maxOutputBytes });
    const r = await sh.run("seq 1 200000", { timeoutMs: 20_000 });
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.truncated).toBe(true);
    expect(r.omittedBytes).toBeGreaterThan(0);

    const lines = r.output.split("\n");
    const markerIndexes = lines.flatMap((line, index) => (MARKER.test(line) ? [index] : []));
    expect(markerIndexes).toHaveLength(1);
    const at = markerIndexes[0] as number;
    const omitted = Number(MARKER.exec(lines[at] as string)?.[1]);
    expect(omitted).toBe(r.omittedBytes);

    const head = lines.slice(0, at);
    const tail = lines.slice(at + 1);
    expect(head.length).toBeGreaterThan(10);
    expect(tail.length).toBeGreaterThan(10);
    // Head: 1, 2, 3, … consecutive whole lines; tail: …, 199999, 200000.
    expect(head).toEqual(head.map((_, index) => String(index + 1)));
    expect(tail).toEqual(tail.map((_, index) => String(200000 - tail.length + 1 + index)));

    // Kept text fits the cap (the marker is not counted) and the accounting adds up.
    const keptBytes = Buffer.byteLength(head.join("\n") + "\n") + Buffer.byteLength(tail.join("\n") + "\n");
    expect(keptBytes).toBeLessThanOrEqual(maxOutputBytes);
    expect(keptBytes + r.omittedBytes).toBe(seqBytes(200000));
  });

  it("a cap smaller than one read of the terminal still keeps the head", async () => {
    const sh = await spawnBash({ maxOutputBytes: 256 });
    // One big write: the first read of the terminal is already larger than the cap.
    const r = await sh.run("python3 -c \"import sys; sys.stdout.write(''.join('%d\\n' % i for i in range(1, 200001)))\"", {
      timeoutMs: 20_000,
    });
    expect(r.truncated).toBe(true);
    const lines = r.output.split("\n");
    const at = lines.findIndex((line) => MARKER.test(line));
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(0, 3)).toEqual(["1", "2", "3"]);
    expect(lines.at(-1)).toBe("200000");
  });

  it("output under the cap is not truncated", async () => {
    const sh = await spawnBash({ maxOutputBytes: 4_096 });
    const r = await sh.run("seq 1 100");
    expect(r.truncated).toBe(false);
    expect(r.omittedBytes).toBe(0);
    expect(r.output).toBe(Array.from({ length: 100 }, (_, index) => String(index + 1)).join("\n"));
  });

  it("raw is capped too", async () => {
    const maxOutputBytes = 4_096;
    const sh = await spawnBash({ maxOutputBytes });
    const r = await sh.run("seq 1 50000", { timeoutMs: 20_000 });
    expect(r.truncated).toBe(true);
    expect(r.rawOmittedBytes).toBeGreaterThan(0);
    const rawKept = r.raw
      .split("\n")
      .filter((line) => !MARKER.test(line))
      .join("\n");
    expect(Buffer.byteLength(rawKept)).toBeLessThanOrEqual(maxOutputBytes + 2);
  });

  it("a large output is complete and in order under the default cap", async () => {
    const sh = await spawnBash();
    const r = await sh.run("seq 1 100000", { timeoutMs: 20_000 });
    expect(r.truncated).toBe(false);
    const lines = r.output.split("\n");
    expect(lines).toHaveLength(100000);
    // No line split in two, none lost.
    expect(lines.every((line, index) => line === String(index + 1))).toBe(true);
  });

  it("multi-byte characters at the cut are not broken", async () => {
    const sh = await spawnBash({ maxOutputBytes: 1_001 });
    const r = await sh.run("python3 -c \"print(('é€😀' * 20 + '\\n') * 500, end='')\"", { timeoutMs: 20_000 });
    expect(r.truncated).toBe(true);
    expect(r.output).not.toContain("\uFFFD");
    for (const line of r.output.split("\n")) {
      if (!MARKER.test(line)) expect(line).toBe("é€😀".repeat(20));
    }
  });
});
