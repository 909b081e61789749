import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AsciicastWriter, parseAsciicast } from "../../src/index.js";
import { tempDir } from "../helpers/common.js";

describe("AsciicastWriter", () => {
  it("writes the header at once and one JSON line per event, with times that never go back", () => {
    const file = join(tempDir(), "unit.cast");
    const cast = new AsciicastWriter(file, { version: 2, width: 80, height: 24, env: { TERM: "xterm-256color", SHELL: "/bin/bash" } });
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ version: 2, width: 80, height: 24, env: { TERM: "xterm-256color" } });
    cast.output("héllo \x1b[1mworld\x1b[0m\r\n");
    cast.input("ls\r");
    cast.resize(100, 30);
    cast.mark("cell 1 start: ls");
    cast.output("");
    cast.close();
    cast.output("after close");
    const parsed = parseAsciicast(readFileSync(file, "utf8"));
    expect(parsed.events.map(([, code, data]) => [code, data])).toEqual([
      ["o", "héllo \x1b[1mworld\x1b[0m\r\n"],
      ["i", "ls\r"],
      ["r", "100x30"],
      ["m", "cell 1 start: ls"],
    ]);
    const times = parsed.events.map(([time]) => time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("holds at most flushBytes in memory: 8 MB of output is on disk before close", () => {
    const file = join(tempDir(), "big.cast");
    const cast = new AsciicastWriter(file, { version: 2, width: 80, height: 24 }, { flushBytes: 1 << 16, flushIntervalMs: 60_000 });
    const chunk = `${"x".repeat(1000)}\r\n`;
    for (let index = 0; index < 8000; index++) cast.output(chunk);
    const onDisk = statSync(file).size;
    cast.close();
    const total = statSync(file).size;
    expect(total).toBeGreaterThan(8_000_000);
    expect(total - onDisk).toBeLessThanOrEqual((1 << 16) + 1100);
    expect(cast.bytesWritten).toBe(total);
  });

  it("a failed write (disk full) stops the recording and keeps the error; nothing throws", () => {
    const cast = new AsciicastWriter("/dev/full", { version: 2, width: 80, height: 24 });
    expect(cast.closed).toBe(true);
    expect(cast.error).toMatchObject({ code: "ENOSPC" });
    expect(() => cast.output("more")).not.toThrow();
    expect(() => cast.close()).not.toThrow();
  });

  it("rejects a bad path or size with ERR_INVALID_ARGUMENT and a missing directory with ERR_RECORD", () => {
    expect(() => new AsciicastWriter("", { version: 2, width: 80, height: 24 })).toThrowError(
      expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }),
    );
    expect(() => new AsciicastWriter(join(tempDir(), "x.cast"), { version: 2, width: 0, height: 24 })).toThrowError(
      expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }),
    );
    expect(() => new AsciicastWriter("/nonexistent-dir/x.cast", { version: 2, width: 80, height: 24 })).toThrowError(
      expect.objectContaining({ code: "ERR_RECORD", message: expect.stringContaining("/nonexistent-dir/x.cast") }),
    );
  });
});

describe("parseAsciicast", () => {
  it("names the line that is not asciicast v2", () => {
    expect(() => parseAsciicast('{"version": 1, "width": 80, "height": 24}\n')).toThrowError(/header .* on line 1/);
    expect(() => parseAsciicast('{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "a"]\n[0.2, "o"]\n')).toThrowError(
      /event \[time, code, data\] on line 3/,
    );
    expect(() => parseAsciicast('{"version": 2, "width": 80, "height": 24}\nnot json\n')).toThrowError(/JSON on line 2/);
    expect(() => parseAsciicast("")).toThrowError(/empty file/);
  });
});
