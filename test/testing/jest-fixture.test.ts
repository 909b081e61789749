import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectSampleOutcome } from "../helpers/sample-outcome.js";
import { type JsonReport, root, runChild, scratch } from "../helpers/child-runs.js";

const samples = join(root, "test/testing/samples/jest");

describe("agent-tty/jest in a real Jest run (ESM)", () => {
  it(
    "useTerminal() and the matchers: a passing and a failing sample file give the right counts, failure text with screens and transcripts, no leftover process and the recordings",
    { timeout: 120_000 },
    async () => {
      const casts = scratch("agent-tty-casts-");
      const report = join(scratch("agent-tty-report-"), "report.json");
      const jest = join(root, "node_modules/jest/bin/jest.js");
      const run = await runChild(samples, ["--experimental-vm-modules", jest, "--ci", "--json", `--outputFile=${report}`], {
        AGENT_TTY_SAMPLE_CASTS: casts,
      });
      if (!existsSync(report)) throw new Error(`no report from Jest (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
      const json = JSON.parse(readFileSync(report, "utf8")) as JsonReport;
      await expectSampleOutcome({ run, casts, json }, "failing-sample-");
      // Jest's own console report shows the screens too.
      expect(run.stderr).toContain("│ SCREEN-MARKER-42");
    },
  );
});
