import { describe, expect, it } from "vitest";
import { spawnBash } from "../helpers/sessions.js";

describe("the program's locale", () => {
  it("a locale the caller gives is kept as given (LC_ALL=C stays C)", async () => {
    const sh = await spawnBash({ env: { LC_ALL: "C" } });
    expect((await sh.run('echo "$LC_ALL"')).output).toBe("C");
    expect((await sh.run("locale charmap")).output).toBe("ANSI_X3.4-1968");
  });

  it("without one given, a non-UTF-8 inherited locale gets the UTF-8 default", async () => {
    const sh = await spawnBash({ env: { LC_ALL: undefined, LC_CTYPE: undefined, LANG: undefined } });
    expect((await sh.run("locale charmap")).output).toBe("UTF-8");
  });
});
