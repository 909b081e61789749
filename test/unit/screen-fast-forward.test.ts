import { describe, expect, it } from "vitest";
import { isPlainText, PlainRun } from "../../src/terminal/plain-run.js";
import { Screen } from "../../src/terminal/screen.js";
import { ScreenBacklog } from "../../src/terminal/screen-backlog.js";
import { seededRandom as random } from "../helpers/seeded-random.js";

const CONTROL_PIECES = [
  "\x1b[31m",
  "\x1b[0m",
  "\x1b[1;32m",
  "\x1b[m",
  "\x1b[38;5;200m",
  "\x1b[4:3m",
  "\x1b[K",
  "\x1b[2K",
  "\x1b[1K",
  "\x1b[5G",
  "\x1b[3;4H",
  "\x1b[2A",
  "\x1b[2;5r",
  "\x1b[r",
  "\x1b[?1049h",
  "\x1b[?1049l",
  "\x1b]0;title\x07",
  "\x1b]133;D;0\x1b\\",
  "\x1b[6n",
  "\x1b[2J",
  "\x1b(0",
  "\x1b(B",
  "\x07",
  "\b",
  "\x1b[?7l",
  "\x1b[?7h",
  "\x1b[?2004h",
  "\x1b[?2004l",
  "\x1b[4h",
  "\x1b[4l",
  "\x1b[?6h",
  "\x1b[?6l",
  "\x1bM",
  "\x1b7",
  "\x1b8",
  "\x0e",
  "\x0f",
  "\x1b[3g",
  "\x1bH",
  "\x9b1m",
  "\x1b[20h",
  "\x1b[20l",
  "\x1bc",
];
const TEXT = "abcdefghijklmnopqrstuvwxyz0123456789 .-漢字é\t";

function line(next: () => number, cols: number, short = false): string {
  const length = Math.floor(next() * (short ? 4 : cols * 2.5));
  let text = "";
  for (let index = 0; index < length; index++) text += TEXT[Math.floor(next() * TEXT.length)];
  return text;
}

function stream(seed: number, cols: number, rows: number): string {
  const next = random(seed);
  const parts: string[] = [];
  const count = 20 + Math.floor(next() * 60);
  for (let part = 0; part < count; part++) {
    const roll = next();
    if (roll < 0.25) {
      parts.push(CONTROL_PIECES[Math.floor(next() * CONTROL_PIECES.length)] ?? "");
    } else if (roll < 0.33) {
      // A screen full of long lines, the cursor moved up, then short lines:
      // what a collapsed burst must still overwrite or scroll away.
      parts.push(`${"#".repeat(cols)}\r\n`.repeat(rows));
      parts.push(next() < 0.5 ? "\x1b[H" : `\x1b[${1 + Math.floor(next() * rows)}A`);
      const lines = 2 * rows + Math.floor(next() * 40);
      for (let index = 0; index < lines; index++) parts.push(`${line(next, cols, true)}\r\n`);
    } else if (roll < 0.45) {
      // A long burst of plain output, as a build log or `cat` produces.
      // Short lines after long ones show stale cells left by a wrong cut.
      const lines = 10 + Math.floor(next() * 400);
      const colored = next() < 0.5;
      const short = next() < 0.5;
      for (let index = 0; index < lines; index++) {
        const text = line(next, cols, short);
        const ending = next() < 0.9 ? "\r\n" : next() < 0.5 ? "\n" : "\r";
        parts.push(colored && next() < 0.3 ? `\x1b[3${index % 8}m${text}\x1b[0m${ending}` : text + ending);
      }
    } else {
      parts.push(line(next, cols) + (next() < 0.8 ? "\r\n" : "\r"));
    }
  }
  return parts.join("");
}

function chunks(text: string, seed: number, largest = 600): string[] {
  const next = random(seed);
  const result: string[] = [];
  for (let start = 0; start < text.length;) {
    const size = 1 + Math.floor(next() * (next() < 0.2 ? 8 : largest));
    result.push(text.slice(start, start + size));
    start += size;
  }
  return result;
}

interface Probe {
  text: string;
  bracketedPaste: boolean;
  responses: string[];
  afterMarker: string;
  afterResize: string;
}

function render(parts: readonly string[], fastForward: boolean, size: { cols: number; rows: number; scrollback: number }): Probe {
  const screen = new Screen({ ...size, fastForward });
  const responses: string[] = [];
  try {
    const subscription = screen.onResponse((data) => responses.push(data));
    try {
      for (const part of parts) screen.write(part);
    } finally {
      subscription.dispose();
    }
    return probe(screen, size, responses);
  } finally {
    screen.dispose();
  }
}

describe("Screen fast-forward", () => {
  it("renders random output exactly as parsing all of it does", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const size = { cols: 10 + (seed % 23), rows: 2 + (seed % 9), scrollback: seed % 3 === 0 ? 0 : seed % 17 };
      // Small chunks keep the tail close to the minimum the proof needs.
      const parts = chunks(stream(seed, size.cols, size.rows), seed * 7919, seed % 2 === 0 ? 600 : 24);
      const full = render(parts, false, size);
      const fast = render(parts, true, size);
      expect(fast, `seed ${seed}`).toEqual(full);
    }
  });

  it("renders the tail of 2,000,000 lines of seq output correctly", () => {
    const lines = Array.from({ length: 200_000 }, (_, index) => `${index + 1}`);
    const output = `${lines.join("\r\n")}\r\n`;
    const parts = chunks(output, 42);
    const size = { cols: 200, rows: 50, scrollback: 0 };
    const fast = render(parts, true, size);
    expect(fast).toEqual(render(parts, false, size));
    // The output ends with CR LF: the cursor sits on the blank last row, which screen text keeps.
    expect(fast.text.split("\n").slice(-3)).toEqual(["199999", "200000", ""]);
  });
});

describe("PlainRun", () => {
  it("keeps only a tail of a long burst, restarting at column 0 with the live colours", () => {
    const run = new PlainRun(10);
    for (let index = 0; index < 1000; index++) {
      expect(run.append(index === 10 ? "\x1b[0;31mred\r\n" : `line ${index}\r\n`)).toBe(true);
    }
    expect(run.hasDropped).toBe(true);
    const tail = run.take();
    expect(tail.startsWith("\r\x1b[0;31mline")).toBe(true);
    expect(tail.split("\n").length - 1).toBeGreaterThanOrEqual(10);
    expect(tail.length).toBeLessThan(1000);
    expect(run.isEmpty).toBe(true);
  });

  it("keeps exactly the last pieces and the live colours, however many pieces it dropped", () => {
    for (const count of [10, 100, 10_000]) {
      const run = new PlainRun(3);
      for (let index = 0; index < count; index++) {
        // A colour every 7th line, a reset every 50th: the colours since the last reset shape what follows.
        const sgr = index % 50 === 0 ? "\x1b[0m" : index % 7 === 0 ? `\x1b[3${index % 8}m` : "";
        expect(run.append(`${sgr}line ${index}\r\n`)).toBe(true);
      }
      let live: string[] = [];
      for (let index = 0; index < count - 3; index++) {
        if (index % 50 === 0) live = ["\x1b[0m"];
        else if (index % 7 === 0) live.push(`\x1b[3${index % 8}m`);
      }
      const kept = Array.from({ length: 3 }, (_, offset) => count - 3 + offset).map((index) => {
        const sgr = index % 50 === 0 ? "\x1b[0m" : index % 7 === 0 ? `\x1b[3${index % 8}m` : "";
        return `${sgr}line ${index}\r\n`;
      });
      expect(run.take(), `${count} pieces`).toBe(`\r${live.join("")}${kept.join("")}`);
      expect(run.isEmpty).toBe(true);
    }
  });

  it("cuts only after CR LF, never after a bare LF", () => {
    const run = new PlainRun(2);
    for (let index = 0; index < 100; index++) run.append(`bare ${index}\n`);
    expect(run.hasDropped).toBe(false);
    expect(run.take()).toHaveLength(Array.from({ length: 100 }, (_, index) => `bare ${index}\n`).join("").length);
  });

  it("treats a CR LF split across appends as a cut point", () => {
    const run = new PlainRun(1);
    for (let index = 0; index < 10; index++) {
      run.append(`${index}\r`);
      run.append("\n");
    }
    expect(run.take()).toBe("\r9\r\n");
  });

  it("a long burst appended at once keeps only its last lines, with the colours still live", () => {
    const run = new PlainRun(3);
    const lines = Array.from({ length: 1000 }, (_, index) => `${index === 500 ? "\x1b[0;32m" : ""}line ${index}\r\n`);
    expect(run.append(`partial ${lines.slice(0, 10).join("")}`)).toBe(true);
    expect(run.append(lines.slice(10).join("") + "open")).toBe(true);
    expect(run.take()).toBe(`\r\x1b[0;32mline 997\r\nline 998\r\nline 999\r\nopen`);
  });

  it("lines cut between appends: the tail still starts right after a CR LF and holds the lines it must", () => {
    const next = random(11);
    for (let round = 0; round < 50; round++) {
      const whole = Array.from({ length: 300 }, (_, index) => `${index}${"x".repeat(Math.floor(next() * 12))}\r\n`).join("");
      const run = new PlainRun(5);
      for (let at = 0; at < whole.length;) {
        const size = 1 + Math.floor(next() * 40);
        expect(run.append(whole.slice(at, at + size))).toBe(true);
        at += size;
      }
      const tail = run.take();
      expect(tail.startsWith("\r")).toBe(true);
      const kept = tail.slice(1);
      expect(whole.endsWith(kept)).toBe(true);
      expect(whole.slice(0, whole.length - kept.length).endsWith("\r\n")).toBe(true);
      expect(kept.split("\n").length - 1).toBeGreaterThanOrEqual(5);
    }
  });

  it("a dropped bracketed paste switch is replayed: the tail leaves the mode as the whole burst does", () => {
    const run = new PlainRun(4);
    for (let index = 0; index < 100; index++) run.append(`\x1b[?2004l\rout ${index}\r\n\x1b[?2004h$ cmd ${index}\r\n`);
    for (let index = 0; index < 10; index++) run.append(`plain ${index}\r\n`);
    expect(run.hasDropped).toBe(true);
    const tail = run.take();
    expect(tail.startsWith("\r\x1b[?2004hplain")).toBe(true);
    const parts = [
      ...Array.from({ length: 100 }, (_, index) => `\x1b[?2004l\rout ${index}\r\n\x1b[?2004h$ cmd ${index}\r\n`),
      "plain\r\n".repeat(10),
    ];
    const size = { cols: 20, rows: 2, scrollback: 0 };
    const fast = render(parts, true, size);
    expect(fast.bracketedPaste).toBe(true);
    expect(fast).toEqual(render(parts, false, size));
  });

  it("isPlainText accepts text, CR, LF, TAB, SGR, EL, CHA and bracketed paste switches and nothing else", () => {
    expect(isPlainText("a\tb\r\n\x1b[1;31mc\x1b[0m\x1b[K\x1b[2K\x1b[5Gé漢")).toBe(true);
    expect(isPlainText("$ ls\r\n\x1b[?2004l\ra\r\n\x1b[?2004h$ ")).toBe(true);
    for (const text of [
      "\x1b[2J",
      "\x1b[H",
      "\x1b]0;t\x07",
      "\x07",
      "\b",
      "\x1b[3",
      "\x1b",
      "\x9b1m",
      "\x0e",
      "\x1b[?1h",
      "\x1b[?2004",
      "\x1b[?20041h",
    ]) {
      expect(isPlainText(`ok${text}`), JSON.stringify(text)).toBe(false);
    }
  });
});

/** Whether the line assembler would call `chunk` plain (what the session marks): no ESC, no control but TAB, CR, LF. */
const ASSEMBLER_PLAIN = /^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$/;

describe("ScreenBacklog", () => {
  it("collapsed without an emulator, then parsed, renders random output exactly as parsing all of it does", () => {
    let collapsed = 0;
    let refused = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const size = { cols: 10 + (seed % 23), rows: 2 + (seed % 9), scrollback: 0 };
      const next = random(seed * 31);
      // Some streams only plain text and SGR, the others anything: both paths are taken.
      const source = seed % 3 === 0 ? plainStream(seed, size.cols) : stream(seed, size.cols, size.rows);
      const parts = chunks(source, seed * 7919, seed % 2 === 0 ? 600 : 24);
      // As the session does: output waits in the backlog, collapsed when it grows, until the
      // backlog refuses; then the emulator is made and parses everything from there on.
      const screen = new Screen({ ...size, fastForward: seed % 2 === 0 });
      const responses: string[] = [];
      const subscription = screen.onResponse((data) => responses.push(data));
      const backlog = new ScreenBacklog();
      let made = false;
      try {
        for (const part of parts) {
          backlog.push(part);
          if (ASSEMBLER_PLAIN.test(part) && next() < 0.8) backlog.markPlain(part);
          if (made) backlog.drainTo(screen);
          else if (backlog.chars > 1000 + Math.floor(next() * 2000)) {
            if (backlog.compact(size.rows, 1000)) collapsed++;
            else {
              refused++;
              made = true;
              backlog.drainTo(screen);
            }
          }
        }
        backlog.drainTo(screen);
        subscription.dispose();
        expect(backlog.chars).toBe(0);
        expect(probe(screen, size, responses), `seed ${seed}`).toEqual(render(parts, false, size));
      } finally {
        screen.dispose();
      }
    }
    // Both outcomes happen often enough for the comparison to mean something.
    expect(collapsed).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(30);
  });

  it("holds the tail of 200,000 lines of seq output, not all of it, and renders it right", () => {
    const lines = Array.from({ length: 200_000 }, (_, index) => `${index + 1}`);
    const parts = chunks(`${lines.join("\r\n")}\r\n`, 42, 4096);
    const size = { cols: 80, rows: 24, scrollback: 0 };
    const backlog = new ScreenBacklog();
    backlog.push("\x1b]0;a title\x07$ seq 1 200000\r\n");
    for (const part of parts) {
      backlog.push(part);
      backlog.markPlain(part);
      if (backlog.chars > 1 << 16) expect(backlog.compact(size.rows, 1 << 15)).toBe(true);
    }
    expect(backlog.chars).toBeLessThan(1 << 16);
    const screen = new Screen(size);
    try {
      backlog.drainTo(screen);
      expect(screen.text().split("\n").slice(-3)).toEqual(["199999", "200000", ""]);
      expect(probe(screen, size)).toEqual(render(["\x1b]0;a title\x07$ seq 1 200000\r\n", ...parts], false, size));
    } finally {
      screen.dispose();
    }
  });

  it("a burst of plain chunks: the last ones stand for it only when they hold a cut point with the lines kept after it", () => {
    // Bare LFs (no cut point) in the last chunks, CR LF lines before: nothing may be left out.
    const size = { cols: 20, rows: 3, scrollback: 0 };
    for (const last of ["x\n".repeat(8), `${"y".repeat(30)}\r\n${"z\n".repeat(8)}`]) {
      const lines = `${Array.from({ length: 300 }, (_, index) => `line ${index}`).join("\r\n")}\r\n`;
      const parts = [...chunks(lines, 5, 200), "w\n".repeat(5), last];
      const backlog = new ScreenBacklog();
      for (const part of parts) {
        backlog.push(part);
        backlog.markPlain(part);
      }
      expect(backlog.compact(size.rows, 1 << 16)).toBe(true);
      const screen = new Screen(size);
      try {
        backlog.drainTo(screen);
        expect(probe(screen, size)).toEqual(render(parts, false, size));
      } finally {
        screen.dispose();
      }
    }
  });

  it("refuses, keeping everything, once the output set a scroll region or left a sequence it does not follow", () => {
    for (const start of ["\x1b[2;5r", "\x1bP1$r\x1b\\", "\x9b2J", "\x1b]0;unterminated"]) {
      const backlog = new ScreenBacklog();
      backlog.push(start);
      const lines = "line\r\n".repeat(1000);
      backlog.push(lines);
      backlog.markPlain(lines);
      const before = backlog.chars;
      expect(backlog.compact(5, 1000), JSON.stringify(start)).toBe(false);
      expect(backlog.chars).toBe(before);
    }
  });
});

/** Plain text with colours and bracketed paste switches only: a backlog can always collapse it. */
function plainStream(seed: number, cols: number): string {
  const next = random(seed);
  const parts: string[] = [];
  const count = 200 + Math.floor(next() * 600);
  for (let index = 0; index < count; index++) {
    const roll = next();
    if (roll < 0.1) parts.push(["\x1b[31m", "\x1b[0m", "\x1b[1;32m", "\x1b[?2004h", "\x1b[?2004l", "\x1b[K"][Math.floor(next() * 6)] ?? "");
    parts.push(line(next, cols, next() < 0.5) + (next() < 0.9 ? "\r\n" : "\r"));
  }
  return parts.join("");
}

/** What `render` compares: the text, the paste mode and the answers, then after a marker and a resize. */
function probe(screen: Screen, size: { cols: number; rows: number }, responses: string[] = []): Probe {
  const subscription = screen.onResponse((data) => responses.push(data));
  try {
    const text = screen.text();
    const bracketedPaste = screen.bracketedPaste;
    screen.write("\x1b[6n");
    screen.write("@");
    const afterMarker = screen.text();
    screen.resize(size.cols + 7, size.rows * 3);
    const afterResize = screen.text();
    return { text, bracketedPaste, responses, afterMarker, afterResize };
  } finally {
    subscription.dispose();
  }
}
