import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { spawnBash } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";

/** Index of the last row with text. */
const lastFilled = (rows: readonly string[]): number => rows.reduce((last, row, index) => (row !== "" ? index : last), -1);

/** Whether this process loaded the terminal emulator (every test file runs in a process of its own). */
const emulatorLoaded = (): boolean => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("@xterm/headless"));

describe("the emulator behind screen()", () => {
  it("is not loaded for a session that never needs one, even through a long burst of output; screen() then shows what a full parse shows", async () => {
    const sh = await spawnBash({ cols: 40, rows: 8 });
    const result = await sh.run("printf '\\033]0;a title\\007'; seq 1 300000");
    expect(result.status).toBe("done");
    expect(result.output.endsWith("\n299999\n300000")).toBe(true);
    await sh.run("echo after");
    expect(emulatorLoaded()).toBe(false);

    const rows = await waitFor(
      () => {
        const shown = sh.screen().split("\n");
        return shown.includes("after") && /[$#]$/.test(shown[lastFilled(shown)] ?? "") ? shown : undefined;
      },
      { message: "the last cell and the prompt on the screen" },
    );
    expect(emulatorLoaded()).toBe(true);
    expect(rows).toHaveLength(8);
    const last = lastFilled(rows);
    expect(rows.slice(last - 4, last)).toEqual(["299999", "300000", expect.stringMatching(/echo after$/), "after"]);
  });
});
