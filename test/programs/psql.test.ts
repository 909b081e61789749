import { afterAll, beforeAll, describe, expect, it } from "vitest";
const INCOMPLETE_REPL_CELL_MESSAGE =
  "agent-tty: the cell is incomplete (the program asked for the rest of it: a statement without its end, an unclosed quote or bracket) and was cancelled; fix it and run it again";
import { spawnBash, spawnSession } from "../helpers/sessions.js";
import { startPostgres, type PrivatePostgres } from "../helpers/postgres.js";

// A real PostgreSQL server (as `nobody` when the tests run as root), private to this file.
let pg: PrivatePostgres | undefined;
beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(async () => {
  await pg?.stop();
});

const psql = async () => {
  if (pg === undefined) throw new Error("the private PostgreSQL server did not start");
  // A cell that waited for the rest of its statement would end as "timeout", not "done".
  return spawnSession({ command: "psql", args: pg.psqlArgs(), timeoutMs: 15_000 });
};

/** The prompt psql shows now (the last line on its screen). */
const promptOf = async (db: Awaited<ReturnType<typeof psql>>): Promise<string> => (await db.screen()).trimEnd().split("\n").pop() ?? "";

describe("psql against a real PostgreSQL server", () => {
  it('"auto" picks the prompt detector: a query answers its rows', async () => {
    const db = await psql();
    const r = await db.run("SELECT 40 + 2 AS answer;");
    expect(r).toMatchObject({ status: "done", decidedBy: "prompt" });
    expect(r.output).toBe(" answer \n--------\n     42\n(1 row)\n");
  });

  it("cells run inside a transaction (prompt `=*#`), after an error in it (`=!#`), and after ROLLBACK", async () => {
    const db = await psql();
    await db.run("CREATE TEMP TABLE t (n int);");
    expect(await db.run("BEGIN;")).toMatchObject({ status: "done", output: "BEGIN" });
    expect(await promptOf(db)).toBe("postgres=*#");
    expect((await db.run("INSERT INTO t VALUES (1);")).output).toBe("INSERT 0 1");
    expect((await db.run("SELECT count(*) FROM t;")).output).toContain("     1\n(1 row)");
    const failed = await db.run("SELECT missing_column FROM t;");
    expect(failed.status).toBe("done");
    expect(failed.output).toContain('column "missing_column" does not exist');
    expect(await promptOf(db)).toBe("postgres=!#");
    const refused = await db.run("SELECT 1;");
    expect(refused.output).toContain("current transaction is aborted");
    expect(await db.run("ROLLBACK;")).toMatchObject({ status: "done", output: "ROLLBACK" });
    expect(await promptOf(db)).toBe("postgres=#");
    expect((await db.run("SELECT count(*) FROM t;")).output).toContain("     0\n(1 row)");
  });

  it("a statement split over lines inside a transaction (continuation `-*#`) runs once", async () => {
    const db = await psql();
    await db.run("BEGIN;");
    const r = await db.run("SELECT\n  2 * 21\n  AS n;");
    expect(r).toMatchObject({ status: "done", output: " n  \n----\n 42\n(1 row)\n" });
    await db.run("COMMIT;");
  });

  it("an incomplete statement (no semicolon) is cancelled at once with a note, and the next cell answers right", async () => {
    const db = await psql();
    const r = await db.run("SELECT 1");
    expect(r).toMatchObject({ status: "done", output: INCOMPLETE_REPL_CELL_MESSAGE });
    expect(await promptOf(db)).toBe("postgres=#");
    const next = await db.run("SELECT 2;");
    expect(next.output).toBe(" ?column? \n----------\n        2\n(1 row)\n");
  });

  it("an unclosed quote, bracket, comment or dollar quote is cancelled, inside a transaction too, which stays open", async () => {
    const db = await psql();
    for (const code of ["SELECT 'open", 'SELECT "open', "SELECT (1", "/* open", "SELECT $$open"]) {
      expect((await db.run(code)).output, code).toBe(INCOMPLETE_REPL_CELL_MESSAGE);
    }
    await db.run("BEGIN;");
    expect((await db.run("SELECT 1")).output).toBe(INCOMPLETE_REPL_CELL_MESSAGE);
    expect(await promptOf(db)).toBe("postgres=*#");
    expect((await db.run("SELECT 3;")).output).toContain("        3\n(1 row)");
    expect((await db.run("COMMIT;")).output).toBe("COMMIT");
  });

  it("complete statements before the incomplete one run; only the unfinished one is dropped", async () => {
    const db = await psql();
    await db.run("CREATE TEMP TABLE t (n int);");
    const r = await db.run("INSERT INTO t VALUES (7); SELECT n FROM t");
    expect(r.output).toBe(`INSERT 0 1\n${INCOMPLETE_REPL_CELL_MESSAGE}`);
    expect((await db.run("SELECT sum(n) FROM t;")).output).toContain("   7\n(1 row)");
  });

  it("single-line mode (`^#`), an inactive \\if branch (`@#`) and a non-superuser (`=>`) are prompts too", async () => {
    const db = await psql();
    await db.run("CREATE ROLE reader LOGIN;");
    expect((await db.run("\\if false")).output).toBe("");
    expect(await promptOf(db)).toBe("postgres@#");
    expect((await db.run("\\endif")).output).toBe("");
    await db.run("\\set SINGLELINE on");
    expect(await promptOf(db)).toBe("postgres^#");
    expect((await db.run("SELECT 5")).output).toContain("        5\n(1 row)");
    await db.run("\\set SINGLELINE off");
    await db.run("SET ROLE reader;");
    // The prompt's `#` comes from the session's user, not the role: \connect as the role.
    const reconnect = await db.run("\\connect - reader");
    expect(reconnect.output).toContain('You are now connected to database "postgres" as user "reader"');
    expect(await promptOf(db)).toBe("postgres=>");
    expect((await db.run("BEGIN;")).output).toBe("BEGIN");
    expect(await promptOf(db)).toBe("postgres=*>");
    expect((await db.run("SELECT 6")).output).toBe(INCOMPLETE_REPL_CELL_MESSAGE);
    expect((await db.run("SELECT 6;")).output).toContain("        6\n(1 row)");
    expect((await db.run("ROLLBACK;")).output).toBe("ROLLBACK");
  });

  it("psql started from a bash cell: its transactions and an incomplete statement are handled the same", async () => {
    if (pg === undefined) throw new Error("the private PostgreSQL server did not start");
    const sh = await spawnBash({ timeoutMs: 15_000 });
    const enter = await sh.run(["psql", ...pg.psqlArgs()].join(" "));
    expect(enter.nested?.entered?.name).toBe("psql");
    expect((await sh.run("BEGIN;")).output).toBe("BEGIN");
    expect(await sh.run("SELECT 1")).toMatchObject({ status: "done", output: INCOMPLETE_REPL_CELL_MESSAGE });
    expect((await sh.run("SELECT 2;")).output).toBe(" ?column? \n----------\n        2\n(1 row)\n");
    expect((await sh.run("ROLLBACK;")).output).toBe("ROLLBACK");
    const left = await sh.run("\\q");
    expect(left.nested?.left?.[0]).toMatchObject({ name: "psql", reason: "exit" });
    expect((await sh.run("echo back")).output).toBe("back");
  });
});
