import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentTtyError, detectors } from "../../src/index.js";
import { spawnBash, spawnSession } from "../helpers/sessions.js";
import { CALC } from "../programs/fixtures/calc.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-tty-hook-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes an executable hook script that exits when it reads a line equal to `prompt`, logging every line it saw. */
function promptHookScript(prompt: string, log: string): string {
  const path = join(dir, `hook-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(
    path,
    `#!/bin/sh\nwhile IFS= read -r line; do\n  printf '%s\\n' "$line" >> '${log}'\n  [ "$line" = '${prompt}' ] && exit 0\ndone\n`,
    { mode: 0o755 },
  );
  return path;
}

describe("hook detector, function", () => {
  it("ends the frame on the line the function accepts; that line is not output", async () => {
    const seen: string[] = [];
    const calc = await spawnSession({
      command: "node",
      args: [CALC, "--cooked"],
      detector: detectors.hook((line) => {
        seen.push(line);
        return line === "calc>";
      }),
    });
    const r = await calc.run("add 2 3");
    expect(r.status).toBe("done");
    expect(r.decidedBy).toBe("hook");
    expect(r.output).toBe("5");
    // Lines are handed over trimmed: the prompt "calc> " arrives as "calc>".
    expect(seen).toContain("calc>");
    expect(seen.every((line) => line === line.trim())).toBe(true);
    const slow = await calc.run("sleep 300");
    expect(slow.output).toBe("slept 300");
  });

  it("an async function hook works the same", async () => {
    const calc = await spawnSession({
      command: "node",
      args: [CALC, "--cooked"],
      detector: detectors.hook(async (line) => {
        await new Promise((resolve) => setImmediate(resolve));
        return line === "calc>";
      }),
    });
    const r = await calc.run("say async works");
    expect(r.status).toBe("done");
    expect(r.decidedBy).toBe("hook");
    expect(r.output).toBe("async works");
  });

  it("frames bash cells by a custom prompt line, ANSI stripped", async () => {
    const sh = await spawnBash({
      detector: detectors.hook((line) => line === "hk$"),
      env: { PS1: "\\[\\e[1;32m\\]hk$\\[\\e[0m\\] " },
    });
    const r = await sh.run("echo one; echo two");
    expect(r.decidedBy).toBe("hook");
    expect(r.output).toBe("one\ntwo");
  });
});

describe("hook detector, executable", () => {
  it("an executable fed the lines on stdin ends the frame by exiting", async () => {
    const log = join(dir, "lines.log");
    const calc = await spawnSession({
      command: "node",
      args: [CALC, "--cooked"],
      detector: detectors.hook(promptHookScript("calc>", log)),
    });
    const r = await calc.run("add 40 2");
    expect(r.status).toBe("done");
    expect(r.decidedBy).toBe("hook");
    expect(r.output).toBe("42");
    const second = await calc.run("say again");
    expect(second.output).toBe("again");
  });

  it("the executable is started once per cell and sees that cell's lines", async () => {
    const log = join(dir, "per-cell.log");
    const calc = await spawnSession({
      command: "node",
      args: [CALC, "--cooked"],
      detector: detectors.hook(promptHookScript("calc>", log)),
    });
    writeFileSync(log, "");
    await calc.run("say marker-one");
    const { readFileSync } = await import("node:fs");
    const lines = readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line !== "");
    expect(lines).toContain("marker-one");
    expect(lines.at(-1)).toBe("calc>");
  });

  it("a path that is not executable is an ERR_INVALID_ARGUMENT", () => {
    const path = join(dir, "not-executable.sh");
    writeFileSync(path, "#!/bin/sh\nexit 0\n", { mode: 0o644 });
    let error: unknown;
    try {
      detectors.hook(path);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AgentTtyError);
    expect((error as AgentTtyError).code).toBe("ERR_INVALID_ARGUMENT");
  });
});
