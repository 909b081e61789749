// Testing full-screen programs: less and vim, driven with keys and read from the screen.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe } from "vitest";
import { expect, test } from "agent-tty/vitest";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
function tempDir(): string {
  dir = mkdtempSync(join(tmpdir(), "agent-tty-example-"));
  return dir;
}

describe("full-screen programs", () => {
  test("less: the first page, then G to the end, q to quit", async ({ terminal }) => {
    const file = join(tempDir(), "numbers.txt");
    writeFileSync(file, Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join("\n"));
    const sh = await terminal({ cols: 60, rows: 10 });
    const pager = sh.fire(`less ${file}`);
    await expect(sh).toShowOnScreen(/^line 1\n[\s\S]*^line 9$/m);
    sh.press("G");
    await expect(sh).toShowOnScreen(/^line 100\n\(END\)/m);
    await expect(sh).not.toShowOnScreen(/^line 1$/m);
    sh.press("q");
    expect(await pager.result).toHaveStatus("done");
  });

  test("vim: insert text, save with :wq, and the file holds it", async ({ terminal }) => {
    const file = join(tempDir(), "notes.txt");
    const sh = await terminal({ cols: 80, rows: 12 });
    const editor = sh.fire(`vim -u NONE -N -n ${file}`);
    await expect(sh).toShowOnScreen(/^~$/m);
    sh.press("i");
    await expect(sh).toShowOnScreen("-- INSERT --");
    sh.type("Hello from agent-tty");
    sh.press("enter");
    sh.type("second line");
    sh.press("esc");
    await expect(sh).not.toShowOnScreen("-- INSERT --");
    sh.type(":wq");
    sh.press("enter");
    expect(await editor.result).toHaveExitCode(0);
    expect(readFileSync(file, "utf8")).toBe("Hello from agent-tty\nsecond line\n");
  });
});
