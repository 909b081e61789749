// An abort that loses the race with its cell's end must not reach the next cell (issue 14, item 1).
import { describe, expect, it } from "vitest";
import { spawnBash } from "../helpers/sessions.js";

const ITERATIONS = 400;

describe("abort racing a cell's end", () => {
  it(`${ITERATIONS} aborts landing as their cell ends corrupt no next cell`, { timeout: 120_000 }, async () => {
    const sh = await spawnBash();
    const corrupted: string[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      const controller = new AbortController();
      const cell = sh.fire(`echo a-${i}`, { signal: controller.signal });
      // Land the abort at a different moment of the cell's end each time: on its output, or a few turns later.
      const turns = i % 4;
      const onData = (chunk: string) => {
        if (!chunk.includes(`a-${i}`)) return;
        let left = turns;
        const fire = () => (left-- > 0 ? setImmediate(fire) : controller.abort());
        fire();
      };
      sh.on("data", onData);
      const aborted = await cell.result;
      sh.off("data", onData);
      const check = await sh.run(`echo check-${i}`);
      if (check.status !== "done" || check.output !== `check-${i}`)
        corrupted.push(
          `${i}: ${check.status} ${JSON.stringify(check.output)} (after the aborted cell settled ${aborted.status}); typed: ${JSON.stringify(check.raw)}`,
        );
    }
    expect(corrupted).toEqual([]);
  });
});
