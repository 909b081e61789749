import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PrivateFiles, privateProcessDir } from "../../src/internal/private-temp-dir.js";

describe("a session's private start-up files", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("are new 0600 files in one 0700 directory of this process (named after it), and remove() deletes only its own", () => {
    const first = new PrivateFiles();
    const second = new PrivateFiles();
    const a = first.write("bashrc", "secret-a");
    const b = second.write("bashrc", "secret-b");
    try {
      expect(a).not.toBe(b);
      expect(dirname(a)).toBe(dirname(b));
      expect(dirname(a)).toBe(privateProcessDir());
      expect(basename(dirname(a))).toMatch(new RegExp(`^agent-tty-${process.pid}-[A-Za-z0-9]{6}$`));
      expect(statSync(dirname(a)).mode & 0o777).toBe(0o700);
      expect(statSync(a).mode & 0o777).toBe(0o600);
      expect(readFileSync(a, "utf8")).toBe("secret-a");
      first.remove();
      expect(existsSync(a)).toBe(false);
      expect(readFileSync(b, "utf8")).toBe("secret-b");
      first.remove();
    } finally {
      first.remove();
      second.remove();
    }
    expect(existsSync(b)).toBe(false);
  });

  it("dir() gives a session a 0700 directory of its own for fixed file names (zsh's ZDOTDIR), removed with them", () => {
    const files = new PrivateFiles();
    try {
      const dir = files.dir();
      const zshrc = files.write(".zshrc", "marks");
      expect(zshrc).toBe(join(dir, ".zshrc"));
      expect(dirname(dir)).toBe(privateProcessDir());
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(zshrc).mode & 0o777).toBe(0o600);
      files.remove();
      expect(existsSync(dir)).toBe(false);
    } finally {
      files.remove();
    }
  });

  it("makes the process directory again when something (a tmp cleaner) removed it", () => {
    rmSync(privateProcessDir(), { recursive: true, force: true });
    const files = new PrivateFiles();
    try {
      const file = files.write("bashrc", "again");
      expect(readFileSync(file, "utf8")).toBe("again");
      expect(dirname(file)).toBe(privateProcessDir());
      expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    } finally {
      files.remove();
    }
  });

  it("leave no directory behind: the process directory goes a second after the last session's files, and a spawn before that reuses it", () => {
    vi.useFakeTimers();
    const first = new PrivateFiles();
    const dir = dirname(first.write("bashrc", "one"));
    first.remove();
    vi.advanceTimersByTime(500);
    const second = new PrivateFiles();
    expect(dirname(second.write("bashrc", "two"))).toBe(dir);
    second.remove();
    vi.advanceTimersByTime(999);
    expect(existsSync(dir)).toBe(true);
    vi.advanceTimersByTime(1);
    expect(existsSync(dir)).toBe(false);
    const third = new PrivateFiles();
    try {
      expect(existsSync(dirname(third.write("bashrc", "three")))).toBe(true);
    } finally {
      third.remove();
    }
  });

  it("shared() writes a file every session reads alike once (0600, in the process directory), again only when it is gone, and it goes with the directory", () => {
    vi.useFakeTimers();
    const first = new PrivateFiles();
    const second = new PrivateFiles();
    const path = first.shared("keys", "constant");
    expect(second.shared("keys", "constant")).toBe(path);
    expect(dirname(path)).toBe(privateProcessDir());
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).toBe("constant");
    first.remove();
    expect(readFileSync(path, "utf8"), "another session still starts with it").toBe("constant");
    rmSync(path);
    expect(second.shared("keys", "constant")).toBe(path);
    expect(readFileSync(path, "utf8"), "written again once gone").toBe("constant");
    second.remove();
    vi.advanceTimersByTime(1_000);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dirname(path))).toBe(false);
    const third = new PrivateFiles();
    try {
      const again = third.shared("keys", "constant");
      expect(readFileSync(again, "utf8")).toBe("constant");
    } finally {
      third.remove();
    }
  });
});
