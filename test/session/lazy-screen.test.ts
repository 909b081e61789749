import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { spawnBash } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";

/** Index of the last row with text. */
const lastFilled = (rows: readonly string[]): number => rows.reduce((last, row, index) => (row !== "" ? index : last), -1);

/** Whether this process loaded the terminal emulator (every test file runs in a process of its own). */
const emulatorLoaded = (): boolean => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("@xterm/headless"));

describe("the emulator behind screen()", () => {
  it("is not loaded for a session that never needs one, through hundreds of cells and a long burst of output; screen() then shows what a full parse shows", async () => {
    const sh = await spawnBash({ cols: 40, rows: 8 });
    // Hundreds of small cells: shell integration's marks and the prompts wait for a screen too.
    for (let cell = 0; cell < 400; cell++) expect((await sh.run(`echo cell ${cell} of many`)).output).toBe(`cell ${cell} of many`);
    const result = await sh.run("printf '\\033]0;a title\\007'; seq 1 300000");
    expect(result.status).toBe("done");
    expect(result.output.endsWith("\n299999\n300000")).toBe(true);
    expect(emulatorLoaded()).toBe(false);

    const rows = await waitFor(
      () => {
        const shown = sh.screen().split("\n");
        return /[$#]$/.test(shown[lastFilled(shown)] ?? "") ? shown : undefined;
      },
      { message: "the prompt after the last cell on the screen" },
    );
    expect(emulatorLoaded()).toBe(true);
    expect(rows).toHaveLength(8);
    const last = lastFilled(rows);
    expect(rows.slice(last - 3, last)).toEqual(["299998", "299999", "300000"]);
  });
});
