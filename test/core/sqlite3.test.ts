import { describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { spawnSession } from "../helpers/sessions.js";

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
});
