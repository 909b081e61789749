import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnBash } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";
import { shq, tempDir } from "../helpers/common.js";

const small = { cols: 80, rows: 24 } as const;

describe("screen() and full-screen programs", () => {
  it("screen() returns every visible row: text at the top, blank rows below it, trailing spaces trimmed; a resize changes the count", async () => {
    const sh = await spawnBash({ cols: 40, rows: 12 });
    await sh.run("clear; printf 'one   \\n\\ntwo\\n'");
    const rows = await waitFor(
      () => {
        const shown = sh.screen().split("\n");
        return shown[3] !== "" ? shown : undefined;
      },
      { message: "the prompt under the printed lines" },
    );
    expect(rows).toHaveLength(12);
    expect(rows.slice(0, 3)).toEqual(["one", "", "two"]);
    expect(rows[3]).toMatch(/[$#]$/);
    expect(rows.slice(4)).toEqual(Array.from({ length: 8 }, () => ""));

    sh.resize(40, 20);
    expect(sh.screen().split("\n")).toHaveLength(20);
  });

  it("vim: open, i, type, Esc, :wq writes the file; the screen showed the text while editing; the shell frames cells after", async () => {
    const dir = tempDir();
    const file = join(dir, "note.txt");
    const sh = await spawnBash(small);
    const cell = sh.fire(`vim -u NONE -N -n ${shq(file)}`);
    await waitFor(() => sh.screen().split("\n")[1] === "~", { timeoutMs: 10_000, message: "vim's empty buffer" });
    expect(sh.screen().split("\n")).toHaveLength(24);

    sh.type("i");
    await waitFor(() => sh.screen().includes("-- INSERT --"), { message: "insert mode" });
    sh.type("Hello from agent-tty");
    sh.press("enter");
    sh.type("second line");
    sh.press("esc");
    const editing = await waitFor(
      () => {
        const text = sh.screen();
        return text.startsWith("Hello from agent-tty\nsecond line\n~") && !text.includes("-- INSERT --") ? text : undefined;
      },
      { message: "the typed text in normal mode" },
    );
    expect(editing.split("\n").filter((row) => row === "~").length).toBeGreaterThan(15);

    sh.type(":wq");
    await waitFor(() => sh.screen().split("\n").at(-1)?.startsWith(":wq") === true, { message: "the command line" });
    sh.press("enter");
    const result = await cell.result;
    expect(result).toMatchObject({ status: "done", exitCode: 0 });
    expect(readFileSync(file, "utf8")).toBe("Hello from agent-tty\nsecond line\n");
    expect(sh.screen()).not.toContain("Hello from agent-tty");

    const after = await sh.run("echo after-vim; echo line-2");
    expect(after).toMatchObject({ status: "done", output: "after-vim\nline-2", exitCode: 0 });
  });

  it("less: the first page, space for the next one, q back to the shell with the alternate screen gone", async () => {
    const dir = tempDir();
    const file = join(dir, "numbers.txt");
    writeFileSync(file, Array.from({ length: 200 }, (_, index) => `line ${index + 1}`).join("\n") + "\n");
    const sh = await spawnBash({ ...small, env: { LESS: "", LESSHISTFILE: "-" } });
    const cell = sh.fire(`less ${shq(file)}`);
    const page = (from: number) => Array.from({ length: 23 }, (_, index) => `line ${from + index}`).join("\n");

    const first = await waitFor(() => (sh.screen().startsWith(page(1)) ? sh.screen() : undefined), {
      timeoutMs: 10_000,
      message: "less's first page",
    });
    expect(first.split("\n")).toHaveLength(24);
    expect(first.split("\n")[23]).toContain("numbers.txt");

    sh.press("space");
    await waitFor(() => sh.screen().startsWith(page(24)), { message: `the second page (screen: ${sh.screen().slice(0, 40)})` });
    sh.type("G");
    await waitFor(() => sh.screen().includes("line 200\n(END)"), { message: "the end of the file" });
    sh.type("q");

    expect((await cell.result).status).toBe("done");
    expect(sh.screen()).not.toContain("line 200");
    expect((await sh.run("echo after-less")).output).toBe("after-less");
  });

  it("`top -b -n 1` prints its summary and process table as cell output", async () => {
    const sh = await spawnBash();
    const result = await sh.run("top -b -n 1 | head -n 12", { timeoutMs: 15_000 });
    expect(result.status).toBe("done");
    const lines = result.output.split("\n");
    expect(lines[0]).toMatch(/^top - \d\d:\d\d:\d\d up /);
    expect(lines.some((line) => line.startsWith("Tasks:"))).toBe(true);
    expect(lines.some((line) => /PID\s+USER\s+.*%CPU.*COMMAND/.test(line))).toBe(true);
    expect(result.output).not.toMatch(/\x1b/);
  });

  it("interactive top redraws on the screen and q quits it", async () => {
    const sh = await spawnBash(small);
    const cell = sh.fire("top -d 0.3");
    const shown = await waitFor(
      () => {
        const text = sh.screen();
        return /^top - /.test(text) && /PID\s+USER/.test(text) ? text : undefined;
      },
      { timeoutMs: 10_000, message: "top's screen" },
    );
    expect(shown.split("\n")).toHaveLength(24);
    const firstClock = shown.split("\n")[0];
    // A redraw replaces the rows in place: the header stays on row 1, never scrolled away.
    await waitFor(() => sh.screen().split("\n")[0] !== firstClock, { timeoutMs: 5_000, message: "top to redraw its clock" });
    expect(sh.screen().split("\n")[0]).toMatch(/^top - /);
    sh.type("q");
    expect((await cell.result).status).toBe("done");
    expect((await sh.run("echo after-top")).output).toBe("after-top");
  });

  it("git add -p: answering y to the hunk stages the change", async () => {
    const dir = tempDir();
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
    git("init", "-q");
    git("config", "user.email", "t@example.com");
    git("config", "user.name", "T");
    writeFileSync(join(dir, "app.txt"), "alpha\nbeta\ngamma\n");
    git("add", "app.txt");
    git("commit", "-q", "-m", "init");
    writeFileSync(join(dir, "app.txt"), "alpha\nBETA\ngamma\n");

    const sh = await spawnBash({ cwd: dir });
    const asked = await sh.run("git add -p", { untilInput: true, timeoutMs: 15_000 });
    expect(asked.status).toBe("awaiting_input");
    expect(asked.output).toContain("+BETA");
    expect(asked.output).toMatch(/Stage this hunk \[[^\]]+\]\?\s*$/);

    sh.type("y\n");
    const done = await sh.wait({ timeoutMs: 10_000 });
    expect(done).toMatchObject({ status: "done", exitCode: 0 });
    expect(git("diff", "--cached", "--name-only")).toBe("app.txt\n");
    expect(git("diff", "--cached")).toContain("+BETA");
    expect(git("diff")).toBe("");
  });

  it("resize(100, 30) reaches the program: stty size, tput and the emulated screen follow", async () => {
    const sh = await spawnBash();
    expect((await sh.run("stty size")).output).toBe("50 200");
    await sh.run("seq 1 80");
    expect(sh.screen().split("\n")).toHaveLength(50);

    sh.resize(100, 30);
    expect((await sh.run("stty size")).output).toBe("30 100");
    expect((await sh.run("tput cols; tput lines")).output).toBe("100\n30");
    await sh.run("seq 1 80");
    expect(sh.screen().split("\n")).toHaveLength(30);
    // A 120-character line wraps at the new width on the screen; the cell output keeps it whole.
    const wide = await sh.run("printf '%0120d\\n' 0");
    expect(wide.output).toBe("0".repeat(120));
    const rows = sh.screen().split("\n");
    expect(rows).toContain("0".repeat(100));
    expect(rows).toContain("0".repeat(20));
  });

  it("resize() sends SIGWINCH to the foreground program: its trap sees the new size", async () => {
    const sh = await spawnBash();
    const script = `trap 'echo "winch $(stty size)"; exit 7' WINCH; echo armed; while :; do sleep 0.05; done`;
    const armed = sh.expect(/^armed$/m, { timeoutMs: 10_000 });
    const cell = sh.fire(`bash -c ${shq(script)}`);
    await armed;
    sh.resize(100, 30);
    const result = await cell.result;
    expect(result).toMatchObject({ status: "done", exitCode: 7 });
    expect(result.output).toBe("armed\nwinch 30 100");
  });

  it("a program asking the cursor position (ESC[6n) gets the answer and does not stall", async () => {
    const sh = await spawnBash();
    const result = await sh.run(`printf 'abc\\e[6n'; IFS= read -rs -d R -t 5 reply; echo; echo "cursor=\${reply#*[}"`, {
      timeoutMs: 10_000,
    });
    expect(result.status).toBe("done");
    expect(result.exitCode).toBe(0);
    // Row is wherever the prompt left the cursor; the column is after "abc".
    expect(result.output).toMatch(/^cursor=\d+;4$/m);
  });

  it("a program asking the device attributes (ESC[c) gets an answer and does not stall", async () => {
    const sh = await spawnBash();
    const result = await sh.run(`printf '\\e[c'; IFS= read -rs -d c -t 5 reply; echo "da=\${reply#*[}"`, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ status: "done", exitCode: 0 });
    expect(result.output).toMatch(/^da=\?[\d;]+$/m);
    expect((await sh.run("echo still-framed")).output).toBe("still-framed");
  });
});
