import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEnvironment, resolveCommand } from "../../src/pty/environment.js";

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

  it("refuses a command no PATH entry has", () => {
    expect(() => resolveCommand("tool", `${root}/empty`)).toThrow(/command not found on PATH/);
  });
});
