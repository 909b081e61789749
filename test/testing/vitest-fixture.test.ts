import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectSampleOutcome } from "../helpers/sample-outcome.js";
import { type JsonReport, root, runChild, scratch } from "../helpers/child-runs.js";
import { readFileSync } from "node:fs";

const samples = join(root, "test/testing/samples/vitest");
const vitest5 = join(root, "test/testing/vitest5");

/** Runs the sample suites with a Vitest CLI in `cwd`; returns its JSON report and what it left. */
async function runSamples(cwd: string, vitestBin: string) {
  const casts = scratch("agent-tty-casts-");
  const report = join(scratch("agent-tty-report-"), "report.json");
  const run = await runChild(cwd, [vitestBin, "run", "--reporter=json", `--outputFile=${report}`], { AGENT_TTY_SAMPLE_CASTS: casts });
  if (!existsSync(report)) throw new Error(`no report from ${vitestBin} (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  return { run, casts, json: JSON.parse(readFileSync(report, "utf8")) as JsonReport };
}

describe("agent-tty/vitest in a real Vitest run", () => {
  it(
    "Vitest 4: a passing and a failing sample file give the right counts, failure text with screens and transcripts, no leftover process and the recordings",
    { timeout: 120_000 },
    async () => {
      await expectSampleOutcome(await runSamples(samples, join(root, "node_modules/vitest/vitest.mjs")), "");
    },
  );

  it(
    "Vitest 5: the same sample files give the same outcome (Vitest 5 declares Node >= 22; the JSON reporter runs on Node 20)",
    { timeout: 120_000 },
    async () => {
      const bin = join(vitest5, "node_modules/vitest/vitest.mjs");
      expect(existsSync(bin), "Vitest 5 is missing: run `npm ci --prefix test/testing/vitest5` (.ci/run does)").toBe(true);
      const project = installCopy();
      const dir = scratch("run-", vitest5);
      cpSync(samples, dir, { recursive: true });
      const outcome = await runSamples(dir, bin);
      rmSync(project, { recursive: true, force: true });
      await expectSampleOutcome(outcome, "");
    },
  );

  it(
    "the matchers are typed on agent-tty/vitest's expect with Vitest 4 and 5, on Vitest's own expect by augmentation, and on Jest's expect",
    { timeout: 180_000 },
    async () => {
      const tsc = join(root, "node_modules/typescript/bin/tsc");
      const config = (files: string[]) =>
        JSON.stringify({
          compilerOptions: {
            module: "NodeNext",
            moduleResolution: "NodeNext",
            target: "ES2022",
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: ["node"],
            exactOptionalPropertyTypes: true,
          },
          files,
        });
      // Vitest 4, the project's: in place.
      const four = join(scratch("agent-tty-types-", join(root, "test/testing")), "tsconfig.json");
      writeFileSync(four, config([join(samples, "types.check.ts"), join(root, "test/testing/samples/jest/types.check.ts")]));
      const v4 = await runChild(root, [tsc, "-p", four], {});
      expect(v4.stdout + v4.stderr).toBe("");
      expect(v4.code).toBe(0);

      // Vitest 5: a copy of the package next to Vitest 5, with the augmentation for Vitest 5.
      const project = installCopy();
      const dir = scratch("run-", vitest5);
      cpSync(samples, dir, { recursive: true });
      writeFileSync(join(dir, "augment.ts"), 'import type {} from "agent-tty/vitest5-matchers";\nexport {};\n');
      writeFileSync(join(dir, "tsconfig.json"), config(["types.check.ts"]));
      const v5 = await runChild(dir, [tsc, "-p", "tsconfig.json"], {});
      rmSync(project, { recursive: true, force: true });
      expect(v5.stdout + v5.stderr).toBe("");
      expect(v5.code).toBe(0);
    },
  );
});

/**
 * Puts a copy of the built package in the Vitest 5 project's node_modules: a copy, not a link, so
 * that its `import "vitest"` finds Vitest 5; its own dependencies resolve from the repository.
 */
function installCopy(): string {
  const target = join(vitest5, "node_modules/agent-tty");
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  cpSync(join(root, "package.json"), join(target, "package.json"));
  cpSync(join(root, "dist"), join(target, "dist"), { recursive: true });
  return target;
}
