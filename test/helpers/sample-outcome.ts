import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { readAsciicast } from "../../src/index.js";
import { alive, type ChildRun, failureOf, type JsonReport } from "./child-runs.js";

/**
 * What Vitest 4, Vitest 5 and Jest must show for the sample suites (the same tests in each);
 * `castPrefix` is how the framework prefixes a test's name (Jest: its describe block).
 */
export async function expectSampleOutcome(
  { run, casts, json }: { run: ChildRun; casts: string; json: JsonReport },
  castPrefix: string,
): Promise<void> {
  expect(run.code).toBe(1);
  expect({ passed: json.numPassedTests, failed: json.numFailedTests }).toEqual({ passed: 5, failed: 2 });

  const failure = failureOf(json, "fails on purpose after printing to two terminals");
  // The assertion's own message, then each session: its last screen and its transcript.
  expect(failure).toContain('expected the cell to have output equal to "expected-output"');
  expect(failure).toMatch(/terminal 1: session 'bash'[\s\S]*last screen \(rows 1-\d+ of 12[^\n]*\n[\s\S]*│ SCREEN-MARKER-42\n/);
  expect(failure).toMatch(/terminal 2: session 'python3'[\s\S]*transcript \(last 30 lines\):\n[\s\S]*│ PY-TRANSCRIPT-42/);
  expect(failure.split("── agent-tty: the test's terminals when it failed ──")).toHaveLength(2);
  const named = [...failure.matchAll(/recording: (\S+\.cast)/g)].map((match) => match[1] as string);
  expect(named).toHaveLength(2);

  const screenFailure = failureOf(json, "toShowOnScreen fails with the last screen");
  expect(screenFailure).toMatch(
    /expected session 'bash' to show "NEVER-SHOWN" on screen within 300 ms[\s\S]*last screen:\n[\s\S]*│ ONLY-THIS-IS-SHOWN/,
  );

  // Sessions, and the background job of the failing test, ended with their tests.
  expect(run.pids.length).toBeGreaterThanOrEqual(7);
  expect(alive(run.pids)).toEqual([]);

  // One recording per session of each failing test, none for passing tests; each parses and holds the output.
  const files = readdirSync(casts).sort();
  expect(files).toEqual([
    `${castPrefix}fails-on-purpose-after-printing-to-two-terminals-1-bash.cast`,
    `${castPrefix}fails-on-purpose-after-printing-to-two-terminals-2-python3.cast`,
    `${castPrefix}toShowOnScreen-fails-with-the-last-screen-1-bash.cast`,
  ]);
  expect(named.map((file) => file.slice(file.lastIndexOf("/") + 1))).toEqual(files.slice(0, 2));
  const bash = await readAsciicast(join(casts, files[0] as string));
  expect(bash.header).toMatchObject({ version: 2, width: 80, height: 12 });
  expect(
    bash.events
      .filter(([, code]) => code === "o")
      .map(([, , data]) => data)
      .join(""),
  ).toContain("SCREEN-MARKER-42");
  expect(bash.events.some(([, code, data]) => code === "m" && data.includes("start: echo actual-output"))).toBe(true);
}
