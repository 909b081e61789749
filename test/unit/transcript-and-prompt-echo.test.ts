import { describe, expect, it } from "vitest";
import { CappedText } from "../../src/internal/capped-text.js";
import { MAX_COMMAND_BYTES, PromptEcho } from "../../src/terminal/prompt-echo.js";
import { Transcript } from "../../src/terminal/transcript.js";

describe("Transcript", () => {
  it("returns the last n lines, with no marker while nothing fell out", () => {
    const transcript = new Transcript();
    transcript.append("echo a\na\necho b\nb\n");
    expect(transcript.lastLines(2)).toBe("echo b\nb");
    expect(transcript.lastLines(100)).toBe("echo a\na\necho b\nb");
  });

  it("keeps an empty first line when asked for more lines than there are", () => {
    const transcript = new Transcript();
    transcript.append("\na\nb\n");
    expect(transcript.lastLines(10)).toBe("\na\nb");
    expect(transcript.lastLines(2)).toBe("a\nb");
  });

  it("shows every append at once whatever its size, small ones gathered before they are written included", () => {
    const transcript = new Transcript();
    const want: string[] = [];
    for (let n = 0; n < 500; n++) {
      // Small appends (gathered), a few large ones (over the batch size), some split mid-line.
      const text = n % 97 === 0 ? `${"y".repeat(10_000)}${n}\n` : n % 5 === 0 ? `part${n}-` : `line ${n}\n`;
      transcript.append(text);
      want.push(text);
      if (n % 7 === 0) expect(transcript.lastLines(3)).toBe(want.join("").replace(/\n$/, "").split("\n").slice(-3).join("\n"));
    }
    expect(transcript.lastLines(1_000)).toBe(want.join("").replace(/\n$/, ""));
  });

  it("stays bounded under a flood and says how many bytes fell out when asked for more than it keeps", () => {
    const transcript = new Transcript();
    const line = `${"x".repeat(99)}\n`; // 100 bytes
    const total = 30_000; // 3 MB, more than the 2 MB kept
    for (let n = 0; n < total; n++) transcript.append(line);
    transcript.append("last\n");
    expect(transcript.lastLines(2)).toBe(`${"x".repeat(99)}\nlast`);
    const all = transcript.lastLines(1_000_000).split("\n");
    const marker = /^\[… (\d+) bytes omitted …\]$/.exec(all[0] ?? "");
    expect(marker).not.toBeNull();
    // Every byte is either kept (in whole lines) or counted.
    const keptBytes = all.slice(1).reduce((sum, kept) => sum + Buffer.byteLength(kept) + 1, 0);
    expect(Number(marker?.[1]) + keptBytes).toBe(total * 100 + 5);
    expect(all.slice(1, -1).every((kept) => kept === "x".repeat(99))).toBe(true);
  });

  it("counts the bytes of a character cut by the wrap as omitted", () => {
    const transcript = new Transcript();
    const line = `${"é".repeat(50)}\n`; // 101 bytes
    const total = 25_000;
    for (let n = 0; n < total; n++) transcript.append(line);
    const all = transcript.lastLines(1_000_000).split("\n");
    const omitted = Number(/^\[… (\d+) bytes omitted …\]$/.exec(all[0] ?? "")?.[1]);
    const keptBytes = all.slice(1).reduce((sum, kept) => sum + Buffer.byteLength(kept) + 1, 0);
    expect(omitted + keptBytes).toBe(total * 101);
    expect(all.slice(1).every((kept) => kept === "é".repeat(50))).toBe(true);
  });

  it("gives back what a model keeping the last 2 MB of bytes gives, across block boundaries, multi-byte characters, huge appends", () => {
    const max = 2 << 20;
    // The last `count` lines of the last `max` bytes of `all`, as documented: a cut first line counted as omitted.
    const model = (all: Buffer, count: number): string => {
      const dropped = Math.max(0, all.length - max);
      let from = dropped;
      while (from < all.length && ((all[from] as number) & 0xc0) === 0x80) from++;
      const text = all.toString("utf8", from);
      const body = text.endsWith("\n") ? text.slice(0, -1) : text;
      const lines = body.split("\n");
      if (dropped === 0 || lines.length > count) return lines.slice(-count).join("\n");
      const omitted = from + Buffer.byteLength((lines[0] as string) + (lines.length > 1 ? "\n" : ""));
      return [`[… ${omitted} bytes omitted …]`, ...lines.slice(1)].join("\n");
    };
    const transcript = new Transcript();
    const appended: Buffer[] = [];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const units = ["a", "é", "€", "😀", "\n", "line\n", "ascii only "];
    for (let step = 0; step < 240; step++) {
      const size = step % 97 === 96 ? 2_200_000 : step % 13 === 0 ? 70_000 + random(70_000) : random(3_000);
      // Runs of one unit: ASCII-only appends and multi-byte ones, lines of all lengths.
      const parts: string[] = [];
      for (let length = 0; length < size;) {
        const part = (units[random(units.length)] as string).repeat(1 + random(size > 10_000 ? 400 : 20));
        parts.push(part);
        length += part.length;
      }
      const text = parts.join("");
      transcript.append(text);
      appended.push(Buffer.from(text));
      if (step % 29 === 0) {
        const all = Buffer.concat(appended);
        for (const count of [1, 5, 1_000_000]) expect(transcript.lastLines(count)).toBe(model(all, count));
      }
    }
    const all = Buffer.concat(appended);
    expect(all.length).toBeGreaterThan(3 * max);
    expect(transcript.lastLines(1_000_000)).toBe(model(all, 1_000_000));
  });

  it("holds at most the bytes it keeps and two blocks, growing to them without leaving buffers behind", () => {
    const before = process.memoryUsage().arrayBuffers;
    const transcript = new Transcript();
    const line = `${"x".repeat(99)}\n`;
    // Grows from nothing to the most it keeps, then wraps: the buffers it allocates on the way, live or not.
    for (let n = 0; n < 40_000; n++) transcript.append(line);
    const grown = process.memoryUsage().arrayBuffers - before;
    expect(grown).toBeLessThanOrEqual((2 << 20) + 2 * (64 << 10));
    expect(transcript.lastLines(1)).toBe("x".repeat(99));
  });

  it("points at a long output's staged bytes and then at the strings they became, exact throughout, ASCII or not", () => {
    for (const unit of ["", " é"]) {
      const transcript = new Transcript();
      const capped = new CappedText(64 << 20, { onSealed: (stage, piece) => transcript.sealed(stage, piece) });
      transcript.append("seq\n");
      let all = "seq\n";
      const before = process.memoryUsage().arrayBuffers;
      let grown = 0;
      for (let n = 1; n <= 400_000; n += 500) {
        // A chunk of lines, as a cell's output arrives: the output stages it, the transcript points at it.
        const chunk = Array.from({ length: 500 }, (_, index) => `${n + index}${unit}\n`).join("");
        capped.append(chunk);
        all += chunk;
        const stage = capped.lastStaged;
        if (stage === undefined) transcript.append(chunk);
        else transcript.appendStaged(stage, capped.lastStagedFrom, capped.lastStagedTo);
        if (n === 150_001) grown = process.memoryUsage().arrayBuffers - before;
        if (n > 150_001 && n % 80_000 === 1) expect(transcript.lastLines(2)).toBe(`${n + 498}${unit}\n${n + 499}${unit}`);
      }
      // ASCII: no block for what the output holds (the stage itself is 1 MB); not: copies once sealed.
      if (unit === "") expect(grown).toBeLessThan((1 << 20) + (128 << 10));
      const whole = (pieces: readonly string[]) => pieces.join("");
      expect(whole(capped.finishPieces(() => "").pieces)).toBe(all.slice(4));
      transcript.append("next\n");
      all += "next\n";
      const lines = transcript.lastLines(10_000_000).split("\n");
      const omitted = Number(/^\[… (\d+) bytes omitted …\]$/.exec(lines[0] ?? "")?.[1]);
      expect(omitted + Buffer.byteLength(lines.slice(1).join("\n")) + 1).toBe(Buffer.byteLength(all));
      expect(all.endsWith(`${lines.slice(1).join("\n")}\n`)).toBe(true);
    }
  });
});

describe("PromptEcho", () => {
  it("reads the command from the line that starts with the prompt drawn last, once", () => {
    const echo = new PromptEcho();
    expect(echo.prompted("bash-5.2$ ")).toBeUndefined();
    expect(echo.line("bash-5.2$ echo hi")).toBe("echo hi");
    expect(echo.take()).toBe("echo hi");
    expect(echo.line("bash-5.2$ printed by the program")).toBeUndefined();
    expect(echo.take()).toBeUndefined();
  });

  it("a line that does not start with the prompt is not a command", () => {
    const echo = new PromptEcho();
    echo.prompted(">>> ");
    expect(echo.line("Traceback (most recent call last):")).toBeUndefined();
    expect(echo.take()).toBeUndefined();
  });

  it("keeps the lines after the command (continuations, an error) until taken; what started nothing comes back at the next prompt", () => {
    const echo = new PromptEcho();
    echo.prompted("$ ");
    echo.line("$ for i in 1 2; do");
    echo.line("> echo $i");
    echo.line("> done");
    expect(echo.take()).toBe("for i in 1 2; do\n> echo $i\n> done");
    echo.prompted("$ ");
    echo.line("$ done");
    echo.line("bash: syntax error near unexpected token `done'");
    expect(echo.prompted("$ ")).toBe("done\nbash: syntax error near unexpected token `done'");
  });

  it("an empty Enter is no command", () => {
    const echo = new PromptEcho();
    echo.prompted("$ ");
    expect(echo.line("$ ")).toBe("");
    expect(echo.prompted("$ ")).toBe("");
  });

  it("a line typed before its prompt was confirmed counts when the line began as exactly the last prompt", () => {
    const echo = new PromptEcho();
    echo.prompted(">>> ");
    echo.line(">>> print(1)");
    echo.take();
    echo.line("1");
    echo.partial(">>> ");
    echo.partial(">>> print(2");
    expect(echo.line(">>> print(2)")).toBe("print(2)");
    // Output that merely contains the prompt later in its line is not taken for one.
    echo.take();
    echo.partial("result: ");
    expect(echo.line("result: >>> ")).toBeUndefined();
  });

  it("stays bounded: a huge command is kept up to its cap and the rest is counted", () => {
    const echo = new PromptEcho();
    echo.prompted("$ ");
    echo.line(`$ echo ${"y".repeat(MAX_COMMAND_BYTES * 2)}`);
    for (let n = 0; n < 1000; n++) echo.line(`> ${"z".repeat(100)}`);
    const taken = echo.take() ?? "";
    const [kept = "", marker = ""] = taken.split("\n");
    expect(Buffer.byteLength(kept)).toBe(MAX_COMMAND_BYTES);
    const omitted = Number(/^\[… (\d+) bytes omitted …\]$/.exec(marker)?.[1]);
    expect(omitted).toBe(5 + MAX_COMMAND_BYTES * 2 + 1 - MAX_COMMAND_BYTES + 1000 * 103);
  });
});
