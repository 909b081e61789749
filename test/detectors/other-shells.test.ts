import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { INCOMPLETE_CELL_MESSAGE } from "../../src/detect/shell-integration/index.js";
import { spawnSession } from "../helpers/sessions.js";

/** Whether `command` is installed (`.ci/run` installs zsh and fish; a bare machine may lack them). */
function installed(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

// Removed once every session is closed: fish fills its HOME with generated completions in the background.
const homes: string[] = [];
afterAll(() => {
  for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

/** An empty HOME (no user configuration), removed after the test. */
function emptyHome(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-tty-home-")));
  homes.push(dir);
  return dir;
}

interface ShellCase {
  readonly command: "zsh" | "fish" | "dash";
  readonly setVariable: string;
  readonly loop: string;
  readonly incomplete: readonly string[];
  readonly replacePrompt: string;
}

const shells: readonly ShellCase[] = [
  {
    command: "zsh",
    setVariable: "x=5",
    loop: "for i in 1 2\ndo echo n$i\ndone",
    incomplete: ["echo 'unclosed", "for i in 1 2; do"],
    replacePrompt: "PROMPT='mine> '; PROMPT2='more> '",
  },
  {
    command: "fish",
    setVariable: "set x 5",
    loop: "for i in 1 2\necho n$i\nend",
    incomplete: ["echo 'unclosed", "begin\necho inside"],
    replacePrompt: "function fish_prompt; echo -n 'mine> '; end",
  },
  {
    command: "dash",
    setVariable: "x=5",
    loop: "for i in 1 2\ndo echo n$i\ndone",
    incomplete: [],
    replacePrompt: "PS1='mine> '",
  },
];

for (const shell of shells) {
  describe.skipIf(!installed(shell.command))(`${shell.command} with shell integration`, () => {
    const spawn = () => spawnSession({ command: shell.command, cwd: "/tmp", env: { HOME: emptyHome() }, timeoutMs: 5_000 });

    it("frames cells with their output, exit status and working directory, and keeps state between them", async () => {
      const sh = await spawn();
      expect(await sh.run("echo hello")).toMatchObject({
        status: "done",
        output: "hello",
        exitCode: 0,
        cwd: "/tmp",
        decidedBy: "shell-integration",
      });
      expect(await sh.run("false")).toMatchObject({ status: "done", output: "", exitCode: 1 });
      expect(await sh.run("cd /usr; sh -c 'exit 4'")).toMatchObject({ output: "", exitCode: 4, cwd: "/usr" });
      await sh.run(shell.setVariable);
      expect((await sh.run("echo $x")).output).toBe("5");
      expect((await sh.run(shell.loop)).output).toBe("n1\nn2");
    });

    it("a cell that is only a comment ends, keeping the previous status (dash evals it: 0)", async () => {
      const sh = await spawn();
      await sh.run("false");
      expect(await sh.run("# nothing to run")).toMatchObject({ status: "done", output: "", exitCode: shell.command === "dash" ? 0 : 1 });
      expect((await sh.run("echo ok")).output).toBe("ok");
    });

    // dash has no line editor: an incomplete cell is a syntax error of the eval it is wrapped in.
    if (shell.command === "dash")
      it("an incomplete cell ends as a syntax error, and the shell stays usable", async () => {
        const sh = await spawn();
        const r = await sh.run("echo 'unclosed");
        expect(r).toMatchObject({ status: "done", exitCode: 2 });
        expect(r.output).toContain("Syntax error");
        expect((await sh.run("echo next")).output).toBe("next");
      });
    if (shell.incomplete.length > 0)
      it("an incomplete cell is cancelled with a note, and the shell stays usable", async () => {
        const sh = await spawn();
        for (const code of shell.incomplete) {
          const r = await sh.run(code);
          expect(r.status, code).toBe("done");
          expect(r.output, code).toBe(INCOMPLETE_CELL_MESSAGE);
          expect(r.exitCode, code).toBe(130);
          expect((await sh.run("echo next")).output).toBe("next");
        }
      });

    it("a cell that replaces the prompt keeps being framed", async () => {
      const sh = await spawn();
      await sh.run(shell.replacePrompt);
      const r = await sh.run("echo after");
      expect(r).toMatchObject({ status: "done", output: "after", exitCode: 0 });
      expect(r.raw).toContain("mine> ");
      expect((await sh.run("false")).exitCode).toBe(1);
    });

    it("text typed at the prompt before a cell is cleared, not run with it", async () => {
      const sh = await spawn();
      await sh.type("stray");
      const r = await sh.run("echo clean");
      expect(r).toMatchObject({ status: "done", output: "clean", exitCode: 0 });
    });
  });
}

describe("line editors in vi mode", () => {
  it("bash with `set -o vi`: stray text is cleared and cells run", async () => {
    const sh = await spawnSession({ command: "bash", args: ["--norc", "--noprofile"], timeoutMs: 5_000 });
    await sh.run("set -o vi");
    await sh.type("stray");
    expect(await sh.run("echo clean")).toMatchObject({ status: "done", output: "clean", exitCode: 0 });
    expect((await sh.run("for i in 1 2\ndo echo n$i\ndone")).output).toBe("n1\nn2");
  });

  it.skipIf(!installed("zsh"))("zsh started with EDITOR=vi (vi keymap): stray text is cleared and cells run", async () => {
    const sh = await spawnSession({ command: "zsh", cwd: "/tmp", env: { HOME: emptyHome(), EDITOR: "vi" }, timeoutMs: 5_000 });
    expect((await sh.run("bindkey -lL main")).output).toBe("bindkey -A viins main");
    await sh.type("stray");
    expect(await sh.run("echo clean")).toMatchObject({ status: "done", output: "clean", exitCode: 0 });
  });
});

describe.skipIf(!installed("zsh"))("zsh start-up files", () => {
  function homeWithZshFiles(): string {
    const home = emptyHome();
    writeFileSync(join(home, ".zshenv"), "export FROM_ZSHENV=yes\n");
    writeFileSync(join(home, ".zprofile"), "FROM_ZPROFILE=yes\n");
    writeFileSync(join(home, ".zshrc"), "FROM_ZSHRC=yes\nPROMPT='user> '\n");
    return home;
  }

  it("loads the user's .zshenv and .zshrc (and .zprofile for a login shell), with ZDOTDIR left as the user had it", async () => {
    const home = homeWithZshFiles();
    const sh = await spawnSession({ command: "zsh", args: ["-l"], cwd: home, env: { HOME: home }, timeoutMs: 5_000 });
    const r = await sh.run("echo $FROM_ZSHENV $FROM_ZPROFILE $FROM_ZSHRC ${ZDOTDIR-unset}");
    expect(r.output).toBe("yes yes yes unset");
    expect(r.raw).toContain("user> ");
  });

  it("follows a ZDOTDIR the user's environment names", async () => {
    const home = emptyHome();
    const zdotdir = join(home, "zsh-config");
    mkdirSync(zdotdir);
    writeFileSync(join(zdotdir, ".zshrc"), "FROM_ZDOTDIR=yes\n");
    const sh = await spawnSession({ command: "zsh", cwd: home, env: { HOME: home, ZDOTDIR: zdotdir }, timeoutMs: 5_000 });
    expect((await sh.run("echo $FROM_ZDOTDIR $ZDOTDIR")).output).toBe(`yes ${zdotdir}`);
  });

  it("zsh -f loads none of the user's files and is still framed", async () => {
    const home = homeWithZshFiles();
    const sh = await spawnSession({ command: "zsh", args: ["-f"], cwd: home, env: { HOME: home }, timeoutMs: 5_000 });
    const r = await sh.run('echo "[$FROM_ZSHENV$FROM_ZSHRC]"; false');
    expect(r).toMatchObject({ status: "done", output: "[]", exitCode: 1 });
  });
});
