import { describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { spawnSession } from "../helpers/sessions.js";
import { INCOMPLETE_REPL_CELL_MESSAGE } from "../../src/detect/prompt.js";

describe("sqlite3 shell", () => {
  it('"auto" picks the prompt detector: create table, insert, select', async () => {
    const db = await spawnSession({ command: "sqlite3", args: [":memory:"] });
    const create = await db.run("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);");
    expect(create.status).toBe("done");
    expect(create.decidedBy).toBe("prompt");
    expect(create.output).toBe("");
    const insert = await db.run("INSERT INTO users (name) VALUES ('ada'), ('grace');");
    expect(insert.output).toBe("");
    const select = await db.run("SELECT id, name FROM users ORDER BY id;");
    expect(select.output).toBe("1|ada\n2|grace");
    expect(select.output).not.toContain("sqlite>");
  });

  it("a statement split over several lines runs once, without continuation prompts", async () => {
    const db = await spawnSession({ command: "sqlite3", args: [":memory:"] });
    await db.run("CREATE TABLE t (n INTEGER);\nINSERT INTO t VALUES (1), (2), (3);");
    const r = await db.run("SELECT\n  sum(n),\n  count(*)\nFROM t;");
    expect(r.status).toBe("done");
    expect(r.output).toBe("6|3");
    expect(r.output).not.toContain("...>");
  });

  it("an SQL error is the output and the session stays usable", async () => {
    const db = await spawnSession({ command: "sqlite3", args: [":memory:"] });
    const r = await db.run("SELECT * FROM missing_table;");
    expect(r.status).toBe("done");
    expect(r.output).toMatch(/no such table: missing_table/);
    const ok = await db.run("SELECT 1 + 1;");
    expect(ok.output).toBe("2");
  });

  it("works with an explicit prompt detector", async () => {
    const db = await spawnSession({
      command: "sqlite3",
      args: [":memory:"],
      detector: detectors.prompt("sqlite> ", { continuation: /\.\.\.> $/ }),
    });
    const r = await db.run("SELECT 'x' || 'y';");
    expect(r.output).toBe("xy");
  });

  it("an incomplete statement is dropped at once with a note (Ctrl-C would keep it), nothing of it runs, and the next cell answers right", async () => {
    const db = await spawnSession({ command: "sqlite3", args: [":memory:"], timeoutMs: 15_000 });
    await db.run("CREATE TABLE t (n INTEGER);");
    const r = await db.run("SELECT 1");
    expect(r).toMatchObject({ status: "done", output: INCOMPLETE_REPL_CELL_MESSAGE });
    expect((await db.run("SELECT 2;")).output).toBe("2");
    // Left in a string, a bracketed name, a comment, a trigger body: each closed and failed, none run.
    await db.run("BEGIN;");
    for (const code of [
      "INSERT INTO t VALUES ('open",
      "SELECT [open",
      "/* open",
      "INSERT INTO t VALUES (1) -- no end",
      "CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM t;",
    ]) {
      expect((await db.run(code)).output, code).toBe(INCOMPLETE_REPL_CELL_MESSAGE);
      expect((await db.run("SELECT count(*) FROM t;")).output, code).toBe("0");
    }
    // The transaction is still open (the `END;` that closes a trigger body never ran as COMMIT).
    expect((await db.run("SELECT name FROM sqlite_master WHERE type = 'trigger';")).output).toBe("");
    expect((await db.run("ROLLBACK;")).output).toBe("");
    expect((await db.run("ROLLBACK;")).output).toMatch(/no transaction is active/);
  });
});
