// Testing a CLI with its own prompt: sqlite3.
import { describe } from "vitest";
import { expect, test } from "agent-tty/vitest";

describe("sqlite3", () => {
  test("creates a table, inserts rows and queries them", async ({ terminal }) => {
    const db = await terminal({ command: "sqlite3", args: [":memory:"] });
    await db.run(".mode list");
    await db.run("create table pets(name text, legs int);");
    await db.run("insert into pets values ('cat', 4), ('bird', 2), ('snake', 0);");
    expect(await db.run("select name from pets where legs > 0 order by name;")).toHaveOutput("bird\ncat");
    expect(await db.run("select sum(legs) from pets;")).toHaveOutput("6");
  });

  test("a syntax error is reported and the next statement still runs", async ({ terminal }) => {
    const db = await terminal({ command: "sqlite3", args: [":memory:"] });
    expect(await db.run("selec 1;")).toHaveOutput(/syntax error/);
    expect(await db.run("select 6 * 7;")).toHaveOutput("42");
  });

  test(".quit ends the program: the cell settles as exited", async ({ terminal }) => {
    const db = await terminal({ command: "sqlite3", args: [":memory:"] });
    expect(await db.run(".quit")).toHaveStatus("exited");
  });
});
