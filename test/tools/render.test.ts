import { describe, expect, test } from "vitest";
import type { CellResult } from "../../src/index.js";
import { cutOutput, renderOutcome, sanitizeForModel, type ToolOutcome } from "../../src/tools/index.js";

const base = {
  cellId: "c0ffee",
  code: "make",
  raw: "",
  durationMs: 1234,
  truncated: false,
  omittedBytes: 0,
  rawOmittedBytes: 0,
  decidedBy: "shell-integration",
  startedAt: new Date(0),
};

function cell(result: Partial<CellResult> & Pick<CellResult, "status">, output = "hello"): ToolOutcome {
  return { kind: "cell", session: "work", result: { ...base, output, exitCode: null, ...result } as CellResult };
}

const ESC = "\x1b";

describe("renderOutcome: cells", () => {
  test("a done cell starts with one status line naming status, exit code, cwd, duration, session and cell", () => {
    const text = renderOutcome(cell({ status: "done", exitCode: 2, cwd: "/srv/app" }, "boom"));
    const [first, ...rest] = text.split("\n");
    expect(first).toBe("status: done | exit: 2 | cwd: /srv/app | 1.23s | session: work | cell: c0ffee");
    expect(rest).toEqual(["boom"]);
  });

  test("a done cell of a REPL without exit code or cwd says n/a for both", () => {
    expect(renderOutcome(cell({ status: "done" })).split("\n")[0]).toBe(
      "status: done | exit: n/a | cwd: n/a | 1.23s | session: work | cell: c0ffee",
    );
  });

  test("empty output is said, never left blank", () => {
    expect(renderOutcome(cell({ status: "done", exitCode: 0 }, "  \n"))).toMatch(/\n\(no output\)$/);
  });

  test("awaiting_input quotes the question and names terminal_send as the answer", () => {
    const text = renderOutcome(cell({ status: "awaiting_input" }, "Installing…\nDo you want to continue? [Y/n] "));
    expect(text.split("\n")[0]).toContain("status: awaiting_input");
    expect(text).toContain('it asked: "Do you want to continue? [Y/n]"');
    expect(text).toContain('terminal_send {"session":"work","text":"…\\n"}');
    expect(text).toContain("terminal_interrupt");
  });

  test("timeout keeps the partial output and says which cell holds the session and how to free it", () => {
    const text = renderOutcome(cell({ status: "timeout" }, "step 1\nstep 2"));
    expect(text).toContain("step 1\nstep 2");
    expect(text).toContain('holds session "work" (cell c0ffee)');
    expect(text).toMatch(/terminal_wait .*terminal_interrupt/s);
  });

  test("interrupted says the session is ready again", () => {
    expect(renderOutcome(cell({ status: "interrupted" }))).toContain('interrupted (Ctrl-C); session "work" is ready');
  });

  test("exited gives the exit code and says to open a new session", () => {
    const text = renderOutcome(cell({ status: "exited", exitCode: 3 }));
    expect(text.split("\n")[0]).toContain("exit: 3");
    expect(text).toContain("exited with code 3");
    expect(text).toContain("terminal_open");
  });

  test("a soft-wait result says running, keeps the output so far and names terminal_wait", () => {
    const text = renderOutcome({
      kind: "running",
      session: "work",
      cellId: "abc",
      code: "npm test",
      output: "PASS a\nPASS b",
      elapsedMs: 30_000,
      waitedMs: 30_000,
    });
    expect(text.split("\n")[0]).toBe("status: running | exit: none yet | cwd: n/a | 30.0s so far | session: work | cell: abc");
    expect(text).toContain("PASS a\nPASS b");
    expect(text).toContain('cell abc ("npm test") holds session "work"');
    expect(text).toContain('terminal_wait {"session":"work"}');
  });

  test("a soft-wait result with nothing printed yet says so", () => {
    expect(renderOutcome({ kind: "running", session: "w", cellId: "a", code: "sleep 9", output: "", elapsedMs: 5, waitedMs: 5 })).toContain(
      "(no output yet)",
    );
  });
});

describe("renderOutcome: truncation", () => {
  test("output over the budget keeps head and tail and says the cut in one line with how to read it", () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n");
    const text = renderOutcome(cell({ status: "done", exitCode: 0 }, lines), { maxOutputChars: 1000 });
    const body = text.split("\n").slice(1);
    expect(body[0]).toBe("line 0");
    expect(body[body.length - 1]).toBe("line 4999");
    const markers = body.filter((line) => line.startsWith("[…"));
    expect(markers).toHaveLength(1);
    expect(markers[0]).toMatch(
      /^\[… \d+ characters \(\d+ lines\) omitted; terminal_output \{"session":"work","cellId":"c0ffee","offset":\d+\} reads them …\]$/,
    );
    expect(text.length).toBeLessThan(1300);
  });

  test("the offset in the cut notice points at the first character left out", () => {
    const text = "a".repeat(50) + "\n" + "b".repeat(50) + "\n" + "c".repeat(200);
    const cut = cutOutput(text, 100, { session: "s", cellId: "x" });
    const offset = Number(/"offset":(\d+)/.exec(cut.text)?.[1]);
    const head = cut.text.slice(0, cut.text.indexOf("\n[…"));
    expect(text.slice(0, offset)).toBe(head);
    expect(cut.omittedChars).toBeGreaterThan(0);
  });

  test("output within the budget is left whole", () => {
    expect(cutOutput("short", 10)).toEqual({ text: "short", omittedChars: 0 });
  });
});

describe("renderOutcome: hostile output", () => {
  const hostile = [
    `${ESC}[31mred${ESC}[0m`,
    `${ESC}]0;pwned title\x07`,
    `${ESC}]8;;http://evil${ESC}\\link${ESC}]8;;${ESC}\\`,
    `${ESC}P+q544e${ESC}\\`,
    `\x9b31mc1-csi`,
    `\x9d0;c1 osc\x9c`,
    "bell\x07 nul\x00 bs\x08 del\x7f",
    "progress 10%\rprogress 100%",
    `${ESC}[2J${ESC}[H${ESC}[?1049h`,
  ].join("\n");

  test("no escape sequence or control character other than newline and tab reaches the model", () => {
    for (const outcome of [
      cell({ status: "done", exitCode: 0, cwd: `/tmp/${ESC}[1mx` }, hostile),
      cell({ status: "awaiting_input" }, hostile),
      { kind: "running", session: "w", cellId: "a", code: `echo ${ESC}[2J`, output: hostile, elapsedMs: 1, waitedMs: 1 } as const,
      { kind: "screen", session: "w", screen: hostile, state: "idle", activity: "idle", activeCell: null } as const,
      { kind: "error", tool: "terminal_run", code: "ERR_INTERNAL", message: hostile } as const,
      { kind: "output", session: "w", cellId: "a", status: "done", text: hostile, offset: 0, totalChars: hostile.length } as const,
    ] satisfies ToolOutcome[]) {
      const text = renderOutcome(outcome);
      expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    }
  });

  test("visible text survives sanitizing; a carriage-return redraw shows its final state", () => {
    const clean = sanitizeForModel(hostile);
    expect(clean).toContain("red");
    expect(clean).toContain("link");
    expect(clean).toContain("progress 100%");
    expect(clean).not.toContain("progress 10%");
    expect(clean).not.toContain("pwned");
  });
});

describe("renderOutcome: errors and the rest", () => {
  test("a busy session names the holding cell and says how to wait for or interrupt it", () => {
    const text = renderOutcome({
      kind: "error",
      tool: "terminal_run",
      code: "ERR_SESSION_BUSY",
      message: "x",
      session: "work",
      cellId: "c1",
      cellActivity: "running",
    });
    expect(text).toContain('session "work" is busy running cell c1');
    expect(text).toContain('terminal_wait {"session":"work"}');
    expect(text).toContain('terminal_interrupt {"session":"work"}');
    expect(text).toContain("Nothing was typed");
  });

  test("a busy session whose cell waits for input points at terminal_send", () => {
    const text = renderOutcome({
      kind: "error",
      tool: "terminal_run",
      code: "ERR_SESSION_BUSY",
      message: "x",
      session: "work",
      cellId: "c1",
      cellActivity: "awaiting_input",
    });
    expect(text).toContain("waiting for input in cell c1");
    expect(text).toContain("terminal_send");
  });

  test("a session held by a timed-out cell says it may still be running", () => {
    const text = renderOutcome({
      kind: "error",
      tool: "terminal_run",
      code: "ERR_SESSION_BUSY",
      message: "x",
      session: "work",
      cellId: "c1",
      cellActivity: "timed_out",
    });
    expect(text).toContain("timed out and may still be running");
  });

  test("waiting on a session that has run nothing says to run something", () => {
    expect(renderOutcome({ kind: "error", tool: "terminal_wait", code: "ERR_UNKNOWN_CELL", message: "x", session: "w" })).toBe(
      'Nothing to wait for: no cell has run in session "w" yet. Run one with terminal_run.',
    );
  });

  test("a refused cell gives the policy's reason as a sentence", () => {
    expect(renderOutcome({ kind: "error", tool: "terminal_run", code: "ERR_REFUSED", message: "rm is not allowed", session: "w" })).toBe(
      "Refused: rm is not allowed. Nothing was run. Do something else, or ask the user.",
    );
  });

  test("an unknown session lists the open ones", () => {
    const text = renderOutcome({
      kind: "error",
      tool: "terminal_run",
      code: "ERR_UNKNOWN_SESSION",
      message: "",
      session: "nope",
      openSessions: ["a", "b"],
    });
    expect(text).toBe('Error: there is no open session named "nope". Open sessions: "a", "b"; start one with terminal_open.');
  });

  test("the session list shows label, state and the running cell", () => {
    const text = renderOutcome({
      kind: "sessions",
      maxSessions: 8,
      sessions: [
        {
          name: "api",
          command: "bash",
          label: "api tests",
          description: undefined,
          state: "busy",
          activity: "running",
          activeCell: { id: "c9", code: "npm test", startedAt: new Date() },
          createdAt: new Date(),
        },
        {
          name: "py",
          command: "python3",
          label: undefined,
          description: "scratch",
          state: "idle",
          activity: "idle",
          activeCell: null,
          createdAt: new Date(),
        },
      ],
    });
    expect(text.split("\n")[0]).toBe("2 open sessions (at most 8):");
    expect(text).toMatch(/- "api" \| command "bash" \| label "api tests" \| state busy \| running cell c9 "npm test" for \d+ms/);
    expect(text).toContain('- "py" | command "python3" | state idle | idle | about: "scratch"');
  });
});
