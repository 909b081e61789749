import { describe, expect, it } from "vitest";
import { afterLastQuery, QueryAnswers } from "../../src/pty/query-answers.js";

function answers(raw: boolean, maxPendingChars?: number) {
  const written: string[] = [];
  let checks = 0;
  let release: () => void = () => undefined;
  const q = new QueryAnswers({
    isRaw: () => {
      checks++;
      return new Promise((resolve) => (release = () => resolve(raw)));
    },
    write: (answer) => written.push(answer),
    ...(maxPendingChars === undefined ? {} : { maxPendingChars }),
  });
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) {
      release();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { q, written, checks: () => checks, settle };
}

describe("QueryAnswers", () => {
  it("answers a program reading raw that printed nothing after asking, in one write per check", async () => {
    const a = answers(true);
    a.q.push("\x1b[1;1R");
    a.q.push("\x1b[0n");
    a.q.push("\x1b[?1;2c");
    await a.settle();
    expect(a.written.join("")).toBe("\x1b[1;1R\x1b[0n\x1b[?1;2c");
    expect(a.checks()).toBe(2); // the first answer's check, then one for the two that came during it
  });

  it("drops answers when the terminal is canonical (they would be typed into the next command)", async () => {
    const a = answers(false);
    a.q.push("\x1b[1;1R");
    await a.settle();
    expect(a.written).toEqual([]);
    expect(a.q.dropped).toBe(1);
  });

  it("drops answers once the program printed something after asking, but not for more queries", async () => {
    const a = answers(true);
    a.q.push("\x1b[1;1R");
    a.q.noteOutput("\x1b[6n");
    a.q.noteOutput(">>> ");
    await a.settle();
    expect(a.written).toEqual([]);
  });

  it("holds at most maxPendingChars of answers while a check runs", async () => {
    const a = answers(true, 12);
    for (let i = 0; i < 10; i++) a.q.push("\x1b[1;1R");
    await a.settle();
    expect(a.written.join("").length).toBeLessThanOrEqual(12 + 6);
    expect(a.q.dropped).toBeGreaterThan(0);
  });

  it("afterLastQuery returns the text after the chunk's last query", () => {
    expect(afterLastQuery("ab\x1b[6ncd\x1b[c>>> ")).toBe(">>> ");
    expect(afterLastQuery("plain")).toBe("plain");
    expect(afterLastQuery("x\x1b[6n")).toBe("");
  });
});
