import { describe, expect, it } from "vitest";
import { spawnSession } from "../helpers/sessions.js";
import { CALC } from "../programs/fixtures/calc.js";

describe('detector "auto" picks the detector that fits the program', () => {
  const cases: Array<{ what: string; command: string; args: string[]; code: string; output: string | RegExp; decidedBy: string }> = [
    {
      what: "bash",
      command: "bash",
      args: ["--norc", "--noprofile"],
      code: "echo auto-bash",
      output: "auto-bash",
      decidedBy: "shell-integration",
    },
    { what: "python3", command: "python3", args: ["-q"], code: "print(6 * 7)", output: "42", decidedBy: "prompt" },
    { what: "node REPL", command: "node", args: [], code: "6 * 7", output: "42", decidedBy: "prompt" },
    { what: "gdb", command: "gdb", args: ["-q", "-nx"], code: "print 6 * 7", output: "$1 = 42", decidedBy: "prompt" },
    { what: "sqlite3", command: "sqlite3", args: [":memory:"], code: "SELECT 6 * 7;", output: "42", decidedBy: "prompt" },
    { what: "an unknown line-oriented program", command: "node", args: [CALC], code: "add 40 2", output: "42", decidedBy: "input-wait" },
  ];

  for (const { what, command, args, code, output, decidedBy } of cases) {
    it(`${what} → ${decidedBy}`, async () => {
      const session = await spawnSession({ command, args, readyTimeoutMs: 15_000 });
      const r = await session.run(code, { timeoutMs: 10_000 });
      expect(r.status).toBe("done");
      expect(r.decidedBy).toBe(decidedBy);
      if (typeof output === "string") expect(r.output).toBe(output);
      else expect(r.output).toMatch(output);
      const again = await session.run(code, { timeoutMs: 10_000 });
      expect(again.decidedBy).toBe(decidedBy);
      expect(again.output).toBe(typeof output === "string" ? output.replace("$1", "$2") : again.output);
    });
  }

  it("sh (listed among the shells of shellIntegration) gets shell integration", async () => {
    const sh = await spawnSession({ command: "sh", args: [], readyTimeoutMs: 5_000 });
    const r = await sh.run("echo from-sh; false");
    expect(r.decidedBy).toBe("shell-integration");
    expect(r.output).toBe("from-sh");
    expect(r.exitCode).toBe(1);
  });
});
