import { describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { recordRaw, spawnBash } from "../helpers/sessions.js";

/** `seq 1 n` as clean output. */
const seqText = (n: number) => Array.from({ length: n }, (_, index) => String(index + 1)).join("\n");

/**
 * A large plain output is held once (its raw text is rebuilt from the clean
 * output when asked for): what a cell reports must still be exactly what the
 * terminal sent, for every detector, around the parts that are not plain.
 */
describe("a large output kept whole", () => {
  const detectorCases = [
    { name: "shell integration", options: {} },
    { name: "prompt", options: { env: { PS1: "big$ " }, detector: detectors.prompt("big$ ") } },
    { name: "repeat-enter", options: { env: { PS1: "$ " }, detector: detectors.repeatEnter() } },
  ];

  for (const { name, options } of detectorCases) {
    it(`${name}: output is every line, raw is the bytes the terminal sent during the cell`, async () => {
      const sh = await spawnBash({ maxOutputBytes: 8 << 20, ...options });
      const terminal = recordRaw(sh);
      const r = await sh.run("printf '\\033[1mbold\\033[0m\\n'; seq 1 300000; printf 'tab\\there\\r\\n'; echo done", { timeoutMs: 60_000 });
      expect(r.status).toBe("done");
      expect(r.truncated).toBe(false);
      expect(r.output).toBe(`bold\n${seqText(300000)}\ntab\there\ndone`);
      // The cell's raw text is a contiguous part of what the terminal sent, numbers and all.
      expect(r.raw).toContain(`\x1b[1mbold\x1b[0m\r\n${seqText(300000).replaceAll("\n", "\r\n")}\r\ntab\there\r\r\ndone\r\n`);
      expect(terminal.text()).toContain(r.raw);
      expect(r.rawOmittedBytes).toBe(0);
      const after = await sh.run("echo after");
      expect(after.output).toBe("after");
    });
  }

  it("the result keeps raw as a plain string property: spread, JSON and equality see it", async () => {
    const sh = await spawnBash({ maxOutputBytes: 8 << 20 });
    const r = await sh.run("seq 1 100000", { timeoutMs: 30_000 });
    const copy = { ...r };
    expect(copy.raw).toBe(r.raw);
    expect(Object.keys(r)).toContain("raw");
    const parsed = JSON.parse(JSON.stringify(r)) as { raw: string };
    expect(parsed.raw).toBe(r.raw);
    expect(r.raw).toContain(`${seqText(100000).replaceAll("\n", "\r\n")}\r\n`);
  });

  it("expect() waiting during a plain output still sees each line", async () => {
    const sh = await spawnBash({ maxOutputBytes: 8 << 20 });
    const seen = sh.expect(/^12345$/m, { timeoutMs: 30_000 });
    const r = await sh.run("seq 1 20000", { timeoutMs: 30_000 });
    expect((await seen).match).toBe("12345");
    expect(r.output).toBe(seqText(20000));
  });

  it("an output cut to maxOutputBytes has a capped raw text too", async () => {
    const sh = await spawnBash({ maxOutputBytes: 200_000 });
    const r = await sh.run("seq 1 300000", { timeoutMs: 30_000 });
    expect(r.truncated).toBe(true);
    expect(r.rawOmittedBytes).toBeGreaterThan(0);
    expect(Buffer.byteLength(r.raw)).toBeLessThanOrEqual(200_000 + 100);
    expect(r.raw.slice(0, 200)).toContain("1\r\n2\r\n3\r\n");
    expect(r.raw).toContain("\r\n300000\r\n");
  });

  it("history() of an output long enough to be kept in megabyte strings is exact, its whole window, and after more cells", async () => {
    const sh = await spawnBash({ maxOutputBytes: 16 << 20 });
    const result = await sh.run("seq 1 700000", { timeoutMs: 60_000 });
    expect(result.output.endsWith("699999\n700000")).toBe(true);
    const lines = sh.history(10_000_000).split("\n");
    expect(lines[0]).toMatch(/^\[… \d+ bytes omitted …\]$/);
    const kept = lines.slice(1);
    expect(Buffer.byteLength(kept.join("\n"))).toBeGreaterThan((2 << 20) - 16);
    expect(kept.at(-1)).toBe("700000");
    expect(kept.every((line, index) => Number(line) === 700000 - kept.length + 1 + index)).toBe(true);
    await sh.run("echo after");
    expect(sh.history(3)).toBe("700000\necho after\nafter");
  });

  it("history() after a large output has its last lines", async () => {
    const sh = await spawnBash({ maxOutputBytes: 8 << 20 });
    await sh.run("seq 1 400000", { timeoutMs: 30_000 });
    expect(sh.history(3)).toBe("399998\n399999\n400000");
    await sh.run("echo é-€-😀");
    expect(sh.history(2)).toBe("echo é-€-😀\né-€-😀");
  });
});
