import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Screen } from "../../src/terminal/screen.js";
import { type RawPty, startPty } from "../helpers/raw-pty.js";
import { waitFor } from "../helpers/wait-for.js";

let dir: string;
const screens: Screen[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-tty-screen-"));
});

afterEach(() => {
  for (const screen of screens.splice(0)) screen.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts `command` in a PTY whose output drives a Screen that answers the
 * program's queries.
 */
function startOnScreen(command: string, args: string[], size = { cols: 80, rows: 24 }): { pty: RawPty; screen: Screen } {
  const screen = new Screen(size);
  screens.push(screen);
  const pty = startPty(command, args, { ...size, cwd: dir, env: { LESS: "", LESSHISTFILE: "-" } });
  screen.onResponse((data) => pty.write(data));
  pty.onData((data) => screen.write(data));
  return { pty, screen };
}

/**
 * Runs `line` in a bash that then prints `[exit N]` and keeps the PTY open:
 * when the PTY's own program exits, node-pty may lose its last output.
 */
function shellLine(line: string): [string, string[]] {
  return ["bash", ["--norc", "--noprofile", "-c", `${line}; echo "[exit $?]"; read`]];
}

/** Feeds recorded output to a fresh screen, whole or fast-forwarded. */
function replay(output: string, fastForward: boolean, size = { cols: 80, rows: 24 }): string {
  const screen = new Screen({ ...size, fastForward });
  try {
    for (let start = 0; start < output.length; start += 1000) screen.write(output.slice(start, start + 1000));
    return screen.text();
  } finally {
    screen.dispose();
  }
}

describe("Screen with real programs", () => {
  it("renders vim's alternate screen with the file and tildes, and the shell after it quits", async () => {
    writeFileSync(join(dir, "notes.txt"), "first line\nsecond line\n");
    const { pty, screen } = startOnScreen(...shellLine("vim -u NONE -N -n notes.txt"));
    const shown = await waitFor(
      () => {
        const text = screen.text();
        return text.includes("second line") && text.includes('"notes.txt"') ? text : undefined;
      },
      { timeoutMs: 10_000, message: "vim to draw the file" },
    );
    const rows = shown.split("\n");
    expect(rows.slice(0, 3)).toEqual(["first line", "second line", "~"]);
    expect(rows).toHaveLength(24);
    expect(screen.alternateScreen).toBe(true);
    expect(screen.applicationCursorKeys).toBe(true);

    pty.write("Gothird line\x1b");
    await waitFor(() => screen.text().startsWith("first line\nsecond line\nthird line\n~"));
    pty.write(":q!\r");
    await waitFor(() => screen.text().trimEnd().endsWith("[exit 0]"), { message: "vim to quit" });
    expect(screen.alternateScreen).toBe(false);
    expect(screen.text()).not.toContain("second line");
    expect(replay(pty.output(), true)).toBe(replay(pty.output(), false));
  });

  it("renders less's first page and its end marker after G", async () => {
    writeFileSync(join(dir, "numbers.txt"), Array.from({ length: 200 }, (_, index) => `row ${index + 1}`).join("\n"));
    const { pty, screen } = startOnScreen(...shellLine("less numbers.txt"), { cols: 60, rows: 10 });
    const first = await waitFor(
      () => {
        const text = screen.text();
        return text.includes("row 9") ? text : undefined;
      },
      { timeoutMs: 10_000, message: "less to draw its first page" },
    );
    expect(first.split("\n").slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, index) => `row ${index + 1}`));
    pty.write("G");
    await waitFor(() => screen.text().trimEnd().endsWith("row 200\n(END)"), { message: "less to show the end" });
    pty.write("q");
    await waitFor(() => screen.text().trimEnd().endsWith("[exit 0]"), { message: "less to quit" });
    expect(replay(pty.output(), true, { cols: 60, rows: 10 })).toBe(replay(pty.output(), false, { cols: 60, rows: 10 }));
  });

  it("renders a progress bar redrawn with carriage returns as its final state", async () => {
    const script = 'for i in 10 50 100; do printf "\\rprogress %3d%%" $i; done; printf "\\ndone\\n"';
    const { screen } = startOnScreen(...shellLine(script));
    await waitFor(() => screen.text().trimEnd() === "progress 100%\ndone\n[exit 0]");
  });

  it("shows the last screenful of long output from seq, fast-forwarded or not", async () => {
    // Run inside a live shell: when the PTY's own program exits right after
    // heavy output, node-pty loses the tail of it about half of the time.
    const { pty, screen } = startOnScreen("bash", ["--norc", "--noprofile"]);
    pty.write("PS1='READY$ '\r");
    await waitFor(() => screen.text().trimEnd().endsWith("READY$"), { message: "the prompt" });
    pty.write("seq 1 300000\r");
    const numbers = Array.from({ length: 23 }, (_, index) => `${300000 - 22 + index}`);
    const expected = [...numbers, "READY$"].join("\n");
    await waitFor(() => screen.text() === expected, { timeoutMs: 20_000, message: "the last rows of seq" });
    expect(replay(pty.output(), false)).toBe(expected);
  });
});
