import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { GroundTracker } from "../../src/terminal/ground-tracker.js";
import { xtermInternals } from "../../src/terminal/xterm-internals.js";
import { seededRandom as random } from "../helpers/seeded-random.js";

const { Terminal } = createRequire(import.meta.url)("@xterm/headless") as typeof import("@xterm/headless");

/** Whole sequences and pieces of them: cut anywhere, they exercise every state of the parser. */
const PIECES = [
  "text ",
  "é漢 ",
  "\r\n",
  "\t",
  "\x07",
  "\b",
  "\x1b",
  "\x1b[",
  "\x1b[1;31m",
  "\x1b[0m",
  "\x1b[2;5r",
  "\x1b[r",
  "\x1b[?1049h",
  "\x1b[?1049l",
  "\x1b[!p",
  "\x1b[2 q",
  "\x1b[?25l",
  "\x1b]0;title\x07",
  "\x1b]0;tit",
  "\x1b]8;;http://x\x1b\\",
  "\x1b\\",
  "\x1bP1$r",
  "\x1bPq#0;2;0;0;0\x1b\\",
  "\x1b_apc\x1b\\",
  "\x1b^pm\x1b\\",
  "\x1bX",
  "\x1b(0",
  "\x1b(B",
  "\x1b#8",
  "\x1b7",
  "\x1b8",
  "\x1bc",
  "\x1b[3",
  ";4",
  "H",
  "r",
  "\x18",
  "\x1a",
  "\x7f",
  "\x9b1m",
  "\x9d0;t\x9c",
  "\x1b[1é",
  "\x1b é",
  "\x1b[1\r\n2A",
];

describe("GroundTracker", () => {
  it("says ground only when xterm's parser is in its ground state with the whole screen as scroll region", () => {
    let agreedGround = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const next = random(seed);
      const terminal = new Terminal({ cols: 20, rows: 6, allowProposedApi: true, logLevel: "off" });
      const internals = xtermInternals(terminal);
      if (internals === undefined) throw new Error("xterm internals not found");
      const tracker = new GroundTracker();
      try {
        const count = 5 + Math.floor(next() * 40);
        for (let index = 0; index < count && tracker.known; index++) {
          // Mostly sequences a program prints, now and then the odd piece.
          const piece = next() < 0.5 ? (PIECES[Math.floor(next() * 18)] ?? "") : (PIECES[Math.floor(next() * PIECES.length)] ?? "");
          internals.writeSync(piece);
          tracker.scan(piece);
          if (tracker.known && tracker.inGround) {
            expect(internals.parserInGround() && internals.fullScrollRegion(), `seed ${seed} after ${JSON.stringify(piece)}`).toBe(true);
            agreedGround++;
          }
        }
      } finally {
        terminal.dispose();
      }
    }
    // Not uselessly cautious: it follows most of what programs print.
    expect(agreedGround).toBeGreaterThan(1000);
  });

  it("follows OSC strings to their end (BEL or ST), and CSI sequences with controls inside", () => {
    const tracker = new GroundTracker();
    tracker.scan("\x1b]0;a title");
    expect(tracker.inGround).toBe(false);
    tracker.scan(" more\r\n");
    expect(tracker.inGround).toBe(false);
    tracker.scan("\x07$ ");
    expect(tracker.inGround).toBe(true);
    tracker.scan("\x1b]133;A\x1b\\");
    expect(tracker.inGround).toBe(true);
    tracker.scan("\x1b[1\r\n;31");
    expect(tracker.inGround).toBe(false);
    tracker.scan("m");
    expect(tracker.inGround).toBe(true);
    expect(tracker.known).toBe(true);
  });

  it("gives up for good on a scroll region, DCS/APC strings and C1 controls", () => {
    for (const text of ["\x1b[2;5r", "\x1b[r", "\x1bP1$r\x1b\\", "\x1b_x\x1b\\", "\x9b1m", "\x1b[1é"]) {
      const tracker = new GroundTracker();
      tracker.scan(text);
      tracker.scan("\x1b[r plain text\r\n");
      expect(tracker.known, JSON.stringify(text)).toBe(false);
      expect(tracker.inGround).toBe(false);
    }
  });
});
