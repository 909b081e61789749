import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../../src/index.js";
import { INCOMPLETE_REPL_CELL_MESSAGE } from "../../src/detect/prompt.js";
import { spawnBash, spawnSession } from "../helpers/sessions.js";
import { startMariadb, type PrivateMariadb } from "../helpers/mariadb.js";
import { waitFor } from "../helpers/wait-for.js";

// A real MariaDB server (as `nobody` when the tests run as root) on a Unix socket, private to this file.
let server: PrivateMariadb | undefined;
let startError: unknown;
beforeAll(async () => {
  try {
    server = await startMariadb();
  } catch (error) {
    startError = error;
  }
}, 60_000);
afterAll(async () => {
  await server?.stop();
}, 30_000);

// The client writes no history file (~/.mysql_history) for these sessions.
const CLIENT_ENV = { MYSQL_HISTFILE: "/dev/null" };

/** The private server: each test that needs it fails (not skips) when it did not start. */
const need = (): PrivateMariadb => {
  if (server === undefined) throw startError ?? new Error("the private MariaDB server did not start");
  return server;
};

const client = async (options: { command?: string; args?: string[] } = {}): Promise<Session> => {
  // A cell that waited for the rest of its statement would end as "timeout", not "done".
  return spawnSession({
    command: options.command ?? "mariadb",
    args: need().clientArgs(...(options.args ?? [])),
    env: CLIENT_ENV,
    timeoutMs: 15_000,
  });
};

/** The server runs a statement starting with `sql` now (asked over a connection of its own). */
const queryRuns = (sql: string): boolean => {
  const query = `SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '${sql.replace(/[()]/g, "_")}%'`;
  return execFileSync("mariadb", need().clientArgs("--batch", "--skip-column-names", "-e", query), { encoding: "utf8" }).trim() !== "0";
};

/** The prompt the client shows now (the last line on its screen). */
const promptOf = async (db: Session): Promise<string> => (await db.screen()).trimEnd().split("\n").pop() ?? "";

/** The client's output with its timings (`(0.001 sec)`) made constant. */
const untimed = (output: string): string => output.replace(/\(\d+\.\d+ sec\)/g, "(T sec)");

describe("the mariadb client against a real MariaDB server", () => {
  it('"auto" picks the prompt detector: a query answers its rows, the prompt names no database', async () => {
    const db = await client();
    expect(await promptOf(db)).toBe("MariaDB [(none)]>");
    const r = await db.run("SELECT 40 + 2 AS answer;");
    expect(r).toMatchObject({ status: "done", decidedBy: "prompt" });
    expect(untimed(r.output)).toBe("+--------+\n| answer |\n+--------+\n|     42 |\n+--------+\n1 row in set (T sec)\n");
  });

  it("USE changes the prompt to the database's name, and cells go on in it", async () => {
    const db = await client();
    expect((await db.run("CREATE DATABASE shop;")).output).toMatch(/^Query OK, 1 row affected/);
    await db.run("CREATE TABLE shop.items (name VARCHAR(20));");
    const use = await db.run("USE shop;");
    expect(use.status).toBe("done");
    // With tables in it, the client reads their names for completion first and says so.
    expect(use.output).toMatch(/Database changed$/);
    expect(await promptOf(db)).toBe("MariaDB [shop]>");
    expect(untimed((await db.run("SELECT DATABASE() AS db;")).output)).toBe(
      "+------+\n| db   |\n+------+\n| shop |\n+------+\n1 row in set (T sec)\n",
    );
    await db.run("USE mysql;");
    expect(await promptOf(db)).toBe("MariaDB [mysql]>");
    await db.run("DROP DATABASE shop;");
  });

  it("a statement split over lines (continuation `    -> `) and a string spanning lines (`    '> `) each run once", async () => {
    const db = await client();
    const split = await db.run("SELECT\n  2 * 21\n  AS n;");
    expect(untimed(split.output)).toBe("+----+\n| n  |\n+----+\n| 42 |\n+----+\n1 row in set (T sec)\n");
    const string = await db.run("SELECT CONCAT('two\nlines', \"!\n\") AS s, LENGTH(`x\ny`) FROM (SELECT 1 AS `x\ny`) AS t;");
    expect(string.status).toBe("done");
    expect(string.output).toContain("| two\nlines!\n");
    expect(string.output).toMatch(/^1 row in set/m);
    expect(await promptOf(db)).toBe("MariaDB [(none)]>");
  });

  it("BEGIN ... ROLLBACK: rows inserted in the transaction are seen in it and gone after it", async () => {
    const db = await client();
    await db.run("CREATE DATABASE tx;");
    await db.run("CREATE TABLE tx.t (n INT) ENGINE=InnoDB;");
    expect((await db.run("BEGIN;")).output).toMatch(/^Query OK, 0 rows affected/);
    expect((await db.run("INSERT INTO tx.t VALUES (1), (2);")).output).toMatch(/^Query OK, 2 rows affected/);
    expect((await db.run("SELECT COUNT(*) AS n FROM tx.t;")).output).toContain("| 2 |");
    // An error inside the transaction leaves it open (MariaDB aborts only the statement).
    expect((await db.run("INSERT INTO tx.t VALUES ('x', 'y');")).output).toMatch(/^ERROR 1136 \(21S01\): Column count doesn't match/);
    expect((await db.run("ROLLBACK;")).output).toMatch(/^Query OK, 0 rows affected/);
    expect((await db.run("SELECT COUNT(*) AS n FROM tx.t;")).output).toContain("| 0 |");
    await db.run("DROP DATABASE tx;");
  });

  it("an SQL error is the cell's output and the next cell is clean", async () => {
    const db = await client();
    const r = await db.run("SELECT missing_column;");
    expect(r).toMatchObject({ status: "done", decidedBy: "prompt" });
    expect(r.output).toMatch(/^ERROR 1054 \(42S22\): Unknown column 'missing_column' in '[a-z ]+'$/i);
    expect(untimed((await db.run("SELECT 7 AS n;")).output)).toBe("+---+\n| n |\n+---+\n| 7 |\n+---+\n1 row in set (T sec)\n");
  });

  it("an incomplete statement (no semicolon) is cancelled at once with a note, and the next cell answers right", async () => {
    const db = await client();
    const r = await db.run("SELECT 1");
    // "done" with the note: settled by the prompt coming back, not by the cell's timeout ("timeout").
    expect(r).toMatchObject({ status: "done", output: INCOMPLETE_REPL_CELL_MESSAGE });
    expect(await promptOf(db)).toBe("MariaDB [(none)]>");
    // The client holds nothing of it: `SELECT 2;` is not appended to `SELECT 1`.
    const next = await db.run("SELECT 2 AS n;");
    expect(untimed(next.output)).toBe("+---+\n| n |\n+---+\n| 2 |\n+---+\n1 row in set (T sec)\n");
  });

  it("a quote, quoted name or comment left open is cancelled too, whatever it holds, and nothing of it runs", async () => {
    const db = await client();
    await db.run("CREATE DATABASE left_open;");
    await db.run("CREATE TABLE left_open.t (s VARCHAR(40));");
    const cells = [
      "INSERT INTO left_open.t VALUES ('open",
      'INSERT INTO left_open.t VALUES ("open',
      "INSERT INTO left_open.t (`s",
      "/* open",
      "INSERT INTO left_open.t VALUES ('it\\'s",
      "INSERT INTO left_open.t VALUES ('a;b' -- it's",
      "INSERT INTO left_open.t VALUES ('a' # it's",
      "INSERT INTO left_open.t VALUES (\n'two\nlines",
    ];
    for (const code of cells) {
      expect(await db.run(code), code).toMatchObject({ status: "done", output: INCOMPLETE_REPL_CELL_MESSAGE });
      expect(await promptOf(db), code).toBe("MariaDB [(none)]>");
    }
    expect((await db.run("SELECT COUNT(*) AS n FROM left_open.t;")).output).toContain("| 0 |");
    await db.run("DROP DATABASE left_open;");
  });

  it("a statement followed by a comment, or a cell of comments only, is complete: no note", async () => {
    const db = await client();
    for (const code of ["SELECT 1 AS n; -- done", "SELECT 1 AS n; # done", "SELECT 1 AS n; /* done */", "SELECT 1 AS n;\n-- done"]) {
      expect(untimed((await db.run(code)).output), code).toBe("+---+\n| n |\n+---+\n| 1 |\n+---+\n1 row in set (T sec)\n");
    }
    for (const code of ["-- a comment", "# a comment"]) expect(await db.run(code), code).toMatchObject({ status: "done", output: "" });
  });

  it("complete statements before the incomplete one run; only the unfinished one is dropped", async () => {
    const db = await client();
    await db.run("CREATE DATABASE partly; USE partly;");
    await db.run("CREATE TABLE t (n INT);");
    const r = await db.run("INSERT INTO t VALUES (7); SELECT n FROM t");
    expect(untimed(r.output)).toBe(`Query OK, 1 row affected (T sec)\n\n${INCOMPLETE_REPL_CELL_MESSAGE}`);
    expect((await db.run("SELECT SUM(n) AS s FROM t;")).output).toContain("|    7 |");
    await db.run("DROP DATABASE partly;");
  });

  it("inside a transaction, an incomplete statement is dropped and the transaction stays open", async () => {
    const db = await client();
    await db.run("CREATE DATABASE txo; USE txo;");
    await db.run("CREATE TABLE t (n INT) ENGINE=InnoDB;");
    await db.run("BEGIN;");
    await db.run("INSERT INTO t VALUES (1);");
    expect((await db.run("INSERT INTO t VALUES (2)")).output).toBe(INCOMPLETE_REPL_CELL_MESSAGE);
    expect((await db.run("SELECT @@in_transaction AS tx, COUNT(*) AS n FROM t;")).output).toContain("|    1 | 1 |");
    await db.run("ROLLBACK;");
    expect((await db.run("SELECT COUNT(*) AS n FROM t;")).output).toContain("| 0 |");
    await db.run("DROP DATABASE txo;");
  });

  it("after DELIMITER //, a statement ended by `;` is incomplete and cancelled; `//` ends one", async () => {
    const db = await client();
    expect((await db.run("DELIMITER //")).output).toBe("");
    expect((await db.run("SELECT 5 AS n;")).output).toBe(INCOMPLETE_REPL_CELL_MESSAGE);
    expect((await db.run("SELECT 6 AS n//")).output).toContain("| 6 |");
    await db.run("DELIMITER ;");
    expect((await db.run("SELECT 8 AS n;")).output).toContain("| 8 |");
  });

  it("a look-alike prompt printed by a command (`\\!`) does not end the cell: only the client's own prompt does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-tty-lookalike-"));
    try {
      const script = join(dir, "prompt.sh");
      writeFileSync(script, "printf 'MariaDB [x]> '\nsleep 1\necho after\n");
      const db = await client();
      const r = await db.run(`\\! sh ${script}`);
      expect(r).toMatchObject({ status: "done", decidedBy: "prompt", output: "MariaDB [x]> after" });
      expect(await promptOf(db)).toBe("MariaDB [(none)]>");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("interrupt() kills a running query (Ctrl-C), the client stays, and the next cell answers", async () => {
    const db = await client();
    const cell = db.fire("SELECT SLEEP(30);");
    // Ctrl-C kills the query once the server runs it (before that, the client would only clear its input).
    await waitFor(() => queryRuns("SELECT SLEEP(30)"), { timeoutMs: 10_000, message: "the query running on the server" });
    const r = await db.interrupt();
    expect(r?.status).toBe("interrupted");
    expect(r?.output).toContain("ERROR 1317 (70100): Query execution was interrupted");
    expect((await cell.result).status).toBe("interrupted");
    expect(await promptOf(db)).toBe("MariaDB [(none)]>");
    expect((await db.run("SELECT 11 AS n;")).output).toContain("| 11 |");
  });

  it("\\G prints a row vertically; two statements in one cell answer both; exit ends the client", async () => {
    const db = await client();
    expect(untimed((await db.run("SELECT 1 AS a, 2 AS b\\G")).output)).toBe(
      "*************************** 1. row ***************************\na: 1\nb: 2\n1 row in set (T sec)\n",
    );
    const both = await db.run("SELECT 1 AS a;\nSELECT 2 AS b;");
    expect(untimed(both.output)).toBe(
      "+---+\n| a |\n+---+\n| 1 |\n+---+\n1 row in set (T sec)\n\n+---+\n| b |\n+---+\n| 2 |\n+---+\n1 row in set (T sec)\n",
    );
    expect(await db.run("exit")).toMatchObject({ status: "exited", exitCode: 0, output: "Bye" });
  });

  it("`mysql`, the client's other name, is known too, with Oracle's default prompt `mysql> `", async () => {
    const db = await client({ command: "mysql", args: ["--prompt=mysql> "] });
    expect(await promptOf(db)).toBe("mysql>");
    expect(await db.run("SELECT 3 AS n;")).toMatchObject({ status: "done", decidedBy: "prompt" });
    expect((await db.run("SELECT 3")).output).toBe(INCOMPLETE_REPL_CELL_MESSAGE);
    expect((await db.run("SELECT 4 AS n;")).output).toContain("| 4 |");
  });

  it("started from a bash cell: its cells, an incomplete statement and \\q back to bash", async () => {
    const sh = await spawnBash({ timeoutMs: 15_000, env: CLIENT_ENV });
    const enter = await sh.run(["mariadb", ...need().clientArgs()].join(" "));
    expect(enter.nested?.entered?.name).toBe("mariadb");
    expect((await sh.run("SELECT 9 AS n;")).output).toContain("| 9 |");
    expect(await sh.run("SELECT 1")).toMatchObject({ status: "done", output: INCOMPLETE_REPL_CELL_MESSAGE });
    expect((await sh.run("SELECT 10 AS n;")).output).toContain("| 10 |");
    const left = await sh.run("\\q");
    expect(left.nested?.left?.[0]).toMatchObject({ name: "mariadb", reason: "exit" });
    expect((await sh.run("echo back")).output).toBe("back");
  });

  it("once its server is gone, the prompt becomes `unknown [(none)]> ` and cells still settle", async () => {
    // A server of its own, stopped under the client.
    const own = await startMariadb();
    try {
      const db = await spawnSession({ command: "mariadb", args: own.clientArgs(), env: CLIENT_ENV, timeoutMs: 15_000 });
      expect((await db.run("SELECT 1 AS n;")).output).toContain("| 1 |");
      await own.stop();
      const r = await db.run("SELECT 2 AS n;");
      expect(r).toMatchObject({ status: "done", decidedBy: "prompt" });
      expect(r.output).toContain("Can't connect");
      expect(await promptOf(db)).toBe("unknown [(none)]>");
      expect((await db.run("SELECT 3")).output).toBe(INCOMPLETE_REPL_CELL_MESSAGE);
    } finally {
      await own.stop();
    }
  }, 60_000);
});
