import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEnvironment, checkCwd, resolveCommand } from "../../src/pty/environment.js";

describe("buildEnvironment", () => {
  it("copies process.env, drops the parent's terminal variables, and lets given values win or remove", () => {
    const saved = { ...process.env };
    try {
      process.env["AGENT_TTY_TEST_INHERITED"] = "kept";
      process.env["AGENT_TTY_TEST_REMOVED"] = "gone";
      process.env["TMUX"] = "/tmp/tmux-0/default,1,0";
      process.env["COLUMNS"] = "80";
      const env = buildEnvironment({ AGENT_TTY_TEST_REMOVED: undefined, PAGER: "less", EXTRA: "1" }, true);
      expect(env["AGENT_TTY_TEST_INHERITED"]).toBe("kept");
      expect("AGENT_TTY_TEST_REMOVED" in env).toBe(false);
      expect("TMUX" in env).toBe(false);
      expect("COLUMNS" in env).toBe(false);
      expect(env["PAGER"]).toBe("less");
      expect(env["GIT_PAGER"]).toBe("cat");
      expect(env["EXTRA"]).toBe("1");
      // The copy is the program's: changing it leaves this process's environment alone.
      env["AGENT_TTY_TEST_INHERITED"] = "changed";
      expect(process.env["AGENT_TTY_TEST_INHERITED"]).toBe("kept");
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it("starts from nothing but the given values with extend false", () => {
    const env = buildEnvironment({ ONLY: "this" }, false, false);
    expect(Object.keys(env).sort()).toEqual(["LANG", "ONLY", "TERM"]);
  });

  it("keeps a variable named __proto__ as a variable, inherited or given, and the copy an ordinary object", () => {
    const saved = process.env["__proto__"];
    try {
      process.env["__proto__"] = "inherited";
      const inherited = buildEnvironment({}, false);
      expect(Object.getOwnPropertyDescriptor(inherited, "__proto__")?.value).toBe("inherited");
      const given = buildEnvironment({ ["__proto__"]: "given" }, false, false);
      expect(Object.keys(given)).toContain("__proto__");
      expect(Object.getOwnPropertyDescriptor(given, "__proto__")?.value).toBe("given");
      expect(Object.getPrototypeOf(given)).toBe(Object.prototype);
    } finally {
      if (saved === undefined) delete process.env["__proto__"];
      else process.env["__proto__"] = saved;
    }
  });
});

describe("resolveCommand", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "agent-tty-resolve-"));
    mkdirSync(join(root, "bin"));
    mkdirSync(join(root, "empty"));
    writeFileSync(join(root, "bin", "tool"), "#!/bin/sh\n");
    chmodSync(join(root, "bin", "tool"), 0o755);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("answers the normalized path whatever the spelling of the PATH entry", () => {
    const want = join(root, "bin", "tool");
    for (const entry of [`${root}/bin`, `${root}/bin/`, `${root}//bin`, `${root}/./bin`, `${root}/empty/../bin`, `${root}/bin/.`]) {
      expect(resolveCommand("tool", `${root}/empty:${entry}`)).toBe(want);
    }
  });

  it("takes the first PATH entry that has the command and skips empty entries", () => {
    expect(resolveCommand("tool", `::${root}/empty:${root}/bin:/usr/bin`)).toBe(join(root, "bin", "tool"));
  });

  it("looks in an entry PATH repeats once, and still finds the command past it", () => {
    expect(resolveCommand("tool", `${root}/empty:${root}/empty:${root}/bin:${root}/empty`)).toBe(join(root, "bin", "tool"));
  });

  it("refuses a command no PATH entry has", () => {
    expect(() => resolveCommand("tool", `${root}/empty`)).toThrow(/command not found on PATH/);
  });
});

describe("buildEnvironment: terminal and locale defaults", () => {
  const cases: Array<{
    name: string;
    inherited: Record<string, string>;
    given: Record<string, string | undefined>;
    want: Record<string, string | undefined>;
  }> = [
    {
      name: "a non-UTF-8 inherited LANG gets the UTF-8 default",
      inherited: { LANG: "POSIX" },
      given: {},
      want: { LANG: "C.UTF-8", LC_ALL: undefined },
    },
    { name: "a UTF-8 inherited LANG is kept", inherited: { LANG: "en_US.UTF-8" }, given: {}, want: { LANG: "en_US.UTF-8" } },
    {
      name: "an empty inherited LC_ALL wins the lookup and gets LANG set",
      inherited: { LC_ALL: "", LANG: "en_US.UTF-8" },
      given: {},
      want: { LC_ALL: "", LANG: "C.UTF-8" },
    },
    {
      name: "a non-UTF-8 inherited LC_ALL is replaced",
      inherited: { LC_ALL: "C" },
      given: {},
      want: { LC_ALL: "C.UTF-8", LANG: undefined },
    },
    {
      name: "a non-UTF-8 LC_CTYPE is replaced beside LANG",
      inherited: { LC_CTYPE: "POSIX", LANG: "en_US.UTF-8" },
      given: {},
      want: { LC_CTYPE: "C.UTF-8", LANG: "C.UTF-8" },
    },
    {
      name: "a given locale is kept as given",
      inherited: { LANG: "en_US.UTF-8" },
      given: { LC_ALL: "C" },
      want: { LC_ALL: "C", LANG: "en_US.UTF-8" },
    },
    {
      name: "a removed LANG gets the default again",
      inherited: { LANG: "en_US.UTF-8" },
      given: { LANG: undefined },
      want: { LANG: "C.UTF-8" },
    },
    {
      name: "a dumb TERM becomes xterm-256color",
      inherited: { TERM: "dumb", LANG: "C.UTF-8" },
      given: {},
      want: { TERM: "xterm-256color" },
    },
    { name: "a given TERM is kept", inherited: { TERM: "dumb", LANG: "C.UTF-8" }, given: { TERM: "vt100" }, want: { TERM: "vt100" } },
    {
      name: "a parent terminal variable given again is kept",
      inherited: { COLUMNS: "80", LANG: "C.UTF-8" },
      given: { COLUMNS: "120" },
      want: { COLUMNS: "120" },
    },
  ];
  const LOCALE_KEYS = ["LANG", "LC_ALL", "LC_CTYPE", "TERM", "COLUMNS"];

  for (const { name, inherited, given, want } of cases) {
    it(name, () => {
      const saved = { ...process.env };
      try {
        for (const key of LOCALE_KEYS) delete process.env[key];
        Object.assign(process.env, inherited);
        const env = buildEnvironment(given, false);
        for (const [key, value] of Object.entries(want)) expect([key, env[key]]).toEqual([key, value]);
      } finally {
        for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
        Object.assign(process.env, saved);
      }
    });
  }
});

describe("checkCwd", () => {
  it("accepts a directory (or a link to one) and refuses a file, a missing path, an empty string or a path with a NUL, with ERR_SPAWN", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-tty-cwd-"));
    try {
      const file = join(dir, "file");
      writeFileSync(file, "x");
      symlinkSync(dir, join(dir, "link"));
      expect(() => checkCwd(dir, "bash")).not.toThrow();
      expect(() => checkCwd(`${dir}/`, "bash")).not.toThrow();
      expect(() => checkCwd(join(dir, "link"), "bash")).not.toThrow();
      for (const bad of [file, join(dir, "missing"), "", `${dir}\0x`]) {
        expect(() => checkCwd(bad, "bash"), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: "ERR_SPAWN" }));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
