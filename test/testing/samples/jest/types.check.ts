// Compiled (not run) by test/testing/vitest-fixture.test.ts: Jest's `expect` knows the matchers.
import { expect } from "@jest/globals";
import type { CellResult, Session } from "agent-tty";
import { useTerminal } from "agent-tty/jest";

declare const result: CellResult;
declare const session: Session;

export const terminal = useTerminal({ recordOnFailure: "casts" });
expect(result).toHaveOutput("2");
expect(result).not.toHaveExitCode(1);
expect(result).toHaveStatus("done");
export const shown: Promise<void> = expect(session).toShowOnScreen(/>>> $/m, { timeoutMs: 1000 });
// @ts-expect-error not a status
expect(result).toHaveStatus("finished");
