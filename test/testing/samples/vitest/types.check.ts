// Compiled (not run) by test/testing/vitest-fixture.test.ts with Vitest 4 and with Vitest 5: the
// matchers are typed on agent-tty/vitest's `expect`, and on Vitest's own `expect` by augmentation.
import { expect as vitestExpect } from "vitest";
import type { CellResult, Session } from "agent-tty";
import { expect } from "agent-tty/vitest";
import "./augment.js";

declare const result: CellResult;
declare const session: Session;

expect(result).toHaveOutput("2");
expect(result).toHaveOutput(/^\d$/);
expect(result).not.toHaveExitCode(1);
expect(result).toHaveExitCode(null);
expect(result).toHaveStatus("awaiting_input");
expect(1 + 1).toBe(2);
export const shown: Promise<void> = expect(session).toShowOnScreen(/>>> $/m, { timeoutMs: 1000 });
export const gone: Promise<void> = expect(session).not.toShowOnScreen("error");
vitestExpect(result).toHaveStatus("done");
vitestExpect(result).not.toHaveOutput("x");
export const viaVitest: Promise<void> = vitestExpect(session).toShowOnScreen("$");

// @ts-expect-error not a status
expect(result).toHaveStatus("finished");
// @ts-expect-error exit codes are numbers
vitestExpect(result).toHaveExitCode("0");
// @ts-expect-error no such matcher
expect(result).toHaveOutputs("2");
// @ts-expect-error timeoutMs is a number
void expect(session).toShowOnScreen("$", { timeoutMs: "1s" });
