import { describe, expect, it } from "vitest";
import { autoDetector, replDetector, replDetectorForPrompt } from "../../src/detect/auto.js";
import {
  GDB,
  IRB,
  LUA,
  MYSQL,
  mysqlCancelLine,
  NODE,
  PSQL,
  PYTHON,
  REDIS_CLI,
  SQLITE3,
  sqliteCancelLine,
  type ReplPrompts,
} from "../../src/detect/repl-prompts.js";

/** Each REPL's prompts in every state it shows, and look-alikes that are not its prompts. */
const CASES: ReadonlyArray<{ name: string; prompts: ReplPrompts; prompt: string[]; continuation: string[]; neither: string[] }> = [
  {
    name: "psql",
    prompts: PSQL,
    prompt: [
      "postgres=# ", // ready
      "postgres=*# ", // in a transaction
      "postgres=!# ", // in a failed transaction
      "postgres=?# ", // transaction state unknown
      "postgres^# ", // single-line mode
      "postgres^*# ",
      "postgres@# ", // inside an inactive \if branch
      "postgres@*# ",
      "postgres=> ", // not a superuser
      "postgres=*> ",
      "postgres=!> ",
      "my_db-2=# ",
      "!?> ", // the connection lost for good
      "!> ",
    ],
    continuation: [
      "postgres-# ", // the rest of a statement
      "postgres-*# ", // ... inside a transaction
      "postgres-!# ",
      "postgres'# ", // in a string
      'postgres"# ', // in a quoted name
      "postgres$# ", // in a dollar quote
      "postgres(# ", // in a bracket
      "postgres(!# ",
      "postgres*# ", // in a comment
      "postgres**# ", // in a comment, in a transaction
      "postgres-> ",
      "postgres'*> ",
    ],
    neither: [
      "postgres=#",
      "postgres=# SELECT 1;",
      "postgres=#  ",
      " postgres=# ",
      "a b=# ",
      "x => ",
      "postgres=## ",
      "=",
      "# ",
      ">>> ",
      "sqlite> ",
      "postgres=*",
      "(1 row)",
    ],
  },
  {
    name: "sqlite3",
    prompts: SQLITE3,
    prompt: ["sqlite> "],
    continuation: ["   ...> ", "...> ", "(x1...> ", "'  ...> "],
    neither: ["sqlite>", "sqlite> SELECT 1;", "   ...>", "   ...> x", "1|ada", ">>> ", "... "],
  },
  {
    name: "python",
    prompts: PYTHON,
    prompt: [">>> "],
    continuation: ["... "],
    neither: [">>>", ">>> 1+1", "....", "... x", " >>> ", "(Pdb) ", "> "],
  },
  {
    name: "mysql / mariadb",
    prompts: MYSQL,
    prompt: [
      "mysql> ", // Oracle's client
      "MariaDB [(none)]> ", // MariaDB's, no database selected
      "MariaDB [shop]> ", // after USE shop
      "MariaDB [my db]> ", // a quoted name with a space
      "MariaDB [a]b]> ",
      "MySQL [(none)]> ", // MariaDB's client against a MySQL server
      "unknown [(none)]> ", // the connection lost
    ],
    continuation: [
      "    -> ", // the rest of a statement
      "    '> ", // in a string
      '    "> ', // in a double-quoted string or name
      "    `> ", // in a quoted name
      "   /*> ", // in a comment
    ],
    neither: [
      "mysql>",
      "mysql> SELECT 1;",
      " mysql> ",
      "MariaDB [(none)]>",
      "MariaDB [(none)]> USE shop;",
      "MariaDB> ",
      "MariaDB [x] > ",
      "mariadb [x]> ",
      "->",
      "-> ",
      "   -> ",
      "     -> ",
      "    -> x",
      "    /*> ",
      "  /*> ",
      "    *> ",
      "| 1 |",
      "+---+",
      "Query OK, 1 row affected (0.001 sec)",
      "> ",
      ">>> ",
      "postgres=# ",
    ],
  },
  { name: "node", prompts: NODE, prompt: ["> "], continuation: ["... "], neither: [">", ">> ", "> x", "....", "debug> "] },
  { name: "gdb", prompts: GDB, prompt: ["(gdb) "], continuation: [], neither: ["(gdb)", "(gdb) run", "(Pdb) "] },
  {
    name: "redis-cli",
    prompts: REDIS_CLI,
    prompt: [
      "127.0.0.1:6379> ",
      "127.0.0.1:6379[1]> ", // a database other than 0 selected
      "127.0.0.1:6379[15]> ",
      "127.0.0.1:6379(TX)> ", // inside MULTI
      "127.0.0.1:6379[1](TX)> ",
      "[::1]:6379> ",
      "redis-host.example:6380> ",
      "redis /tmp/redis.sock> ", // over a Unix socket
      "redis /tmp/redis.sock[2](TX)> ",
      "not connected> ",
    ],
    continuation: [],
    neither: ["127.0.0.1:6379>", "127.0.0.1:6379> GET k", '"value"', "(integer) 1", "> ", ">>> ", "some words> "],
  },
  {
    name: "irb",
    prompts: IRB,
    prompt: ["irb(main):001:0> ", "irb(#<Foo>):012:1> "],
    continuation: ["irb(main):002:1*> ", 'irb(main):002:0"> ', "irb(main):002:0'> ", "irb(main):002:1(> "],
    neither: ["irb(main):001:0>", "irb(main):001:0> 1", "=> 1"],
  },
  { name: "lua", prompts: LUA, prompt: ["> "], continuation: [">> "], neither: [">", ">>", ">>> ", "> x"] },
];

describe("the prompts of the REPLs auto knows, in every state", () => {
  for (const { name, prompts, prompt, continuation, neither } of CASES) {
    it(`${name}: every ready prompt is a prompt and not a continuation`, () => {
      for (const line of prompt) {
        expect(prompts.prompt.test(line), JSON.stringify(line)).toBe(true);
        expect(prompts.continuation?.test(line) ?? false, JSON.stringify(line)).toBe(false);
      }
    });
    if (continuation.length > 0)
      it(`${name}: every continuation prompt is a continuation and not a ready prompt`, () => {
        for (const line of continuation) {
          expect(prompts.continuation?.test(line), JSON.stringify(line)).toBe(true);
          expect(prompts.prompt.test(line), JSON.stringify(line)).toBe(false);
        }
      });
    it(`${name}: look-alikes are neither`, () => {
      for (const line of neither) {
        expect(prompts.prompt.test(line), JSON.stringify(line)).toBe(false);
        expect(prompts.continuation?.test(line) ?? false, JSON.stringify(line)).toBe(false);
      }
    });
  }

  it("no prompt of one SQL client is taken for another's: psql, sqlite3 and mysql stay apart", () => {
    for (const line of ["mysql> ", "MariaDB [(none)]> ", "    -> ", "   /*> "]) {
      for (const other of [PSQL, SQLITE3]) {
        expect(other.prompt.test(line), line).toBe(false);
        expect(other.continuation.test(line), line).toBe(false);
      }
    }
    for (const line of ["postgres=# ", "postgres-# ", "sqlite> ", "   ...> "]) {
      expect(MYSQL.prompt.test(line), line).toBe(false);
      expect(MYSQL.continuation.test(line), line).toBe(false);
    }
  });

  it("a mysql / MariaDB prompt seen inside ssh starts the client's detector; its continuation prompts do not", () => {
    for (const line of ["mysql> ", "MariaDB [(none)]> ", "MariaDB [shop]> "])
      expect(replDetectorForPrompt(line)?.name, line).toBe("prompt");
    for (const line of ["    -> ", "    '> ", "   /*> "]) expect(replDetectorForPrompt(line), line).toBeUndefined();
  });

  it("a psql prompt in any state seen inside ssh starts psql's detector; continuation and other REPLs' prompts do not", () => {
    for (const line of ["postgres=# ", "postgres=*# ", "postgres=!# ", "postgres^# ", "app=> "]) {
      expect(replDetectorForPrompt(line)?.name, line).toBe("prompt");
    }
    for (const line of ["postgres-# ", "$ ", "user@host:~$ ", "# "]) expect(replDetectorForPrompt(line), line).toBeUndefined();
  });
});

describe('"auto" knows the mysql / MariaDB client and redis-cli by name', () => {
  it("mysql and mariadb, by name or path, interactive, get the prompt detector; with -e (a statement to run) they do not", () => {
    for (const command of ["mysql", "mariadb", "/usr/bin/mysql", "/usr/bin/mariadb", "redis-cli", "/usr/local/bin/redis-cli"]) {
      expect(replDetector(command, [])?.name, command).toBe("prompt");
      expect(autoDetector(command, ["-h", "db.example", "shop"]).name, command).toBe("prompt");
    }
    expect(replDetector("mysql", ["-e", "SELECT 1"])).toBeUndefined();
    expect(replDetector("mariadb", ["-u", "root", "-e", "SELECT 1"])).toBeUndefined();
    expect(replDetector("mysqldump", [])).toBeUndefined();
    expect(replDetector("mariadbd", [])).toBeUndefined();
  });
});

describe("sqliteCancelLine: what ends an unfinished sqlite3 statement with an error", () => {
  it("closes what the statement was left in, then adds a token sqlite3 cannot parse and ends it", () => {
    expect(sqliteCancelLine("SELECT 1")).toBe("!; END;\r");
    expect(sqliteCancelLine("SELECT 'open")).toBe("'!; END;\r");
    expect(sqliteCancelLine('SELECT "open')).toBe('"!; END;\r');
    expect(sqliteCancelLine("SELECT `open")).toBe("`!; END;\r");
    expect(sqliteCancelLine("SELECT [open")).toBe("]!; END;\r");
    expect(sqliteCancelLine("/* open")).toBe("*/!; END;\r");
  });

  it("reads quotes the way sqlite3 does: doubled quotes, closed ones, quotes inside comments and other quotes", () => {
    expect(sqliteCancelLine("SELECT 'it''s")).toBe("'!; END;\r");
    expect(sqliteCancelLine("SELECT 'it''s'")).toBe("!; END;\r");
    expect(sqliteCancelLine("SELECT '\"' ")).toBe("!; END;\r");
    expect(sqliteCancelLine('SELECT "a\'b" ')).toBe("!; END;\r");
    expect(sqliteCancelLine("SELECT 1 -- it's a comment")).toBe("!; END;\r");
    expect(sqliteCancelLine("SELECT 1 -- it's\n, 'x")).toBe("'!; END;\r");
    expect(sqliteCancelLine("/* it's */ SELECT [a'b] ")).toBe("!; END;\r");
    expect(sqliteCancelLine("SELECT 1 /* a\n 'b")).toBe("*/!; END;\r");
  });
});

describe("mysqlCancelLine: what clears an unfinished mysql / MariaDB statement", () => {
  it("is `\\c` (clear) after closing what the statement was left in", () => {
    expect(mysqlCancelLine("SELECT 1")).toBe("\\c\r");
    expect(mysqlCancelLine("SELECT 'open")).toBe("'\\c\r");
    expect(mysqlCancelLine('SELECT "open')).toBe('"\\c\r');
    expect(mysqlCancelLine("SELECT `open")).toBe("`\\c\r");
    expect(mysqlCancelLine("/* open")).toBe("*/\\c\r");
    expect(mysqlCancelLine("SELECT 1;\nSELECT 'a\nb")).toBe("'\\c\r");
  });

  it("reads the code as the client does: backslash escapes in strings only, doubled quotes, comments", () => {
    expect(mysqlCancelLine("SELECT 'it\\'s")).toBe("'\\c\r"); // \' does not close the string
    expect(mysqlCancelLine("SELECT 'a\\\\'")).toBe("\\c\r"); // \\ is a backslash, then the quote closes
    expect(mysqlCancelLine('SELECT "say \\"hi')).toBe('"\\c\r');
    expect(mysqlCancelLine("SELECT `a\\`")).toBe("\\c\r"); // no escapes in a quoted name
    expect(mysqlCancelLine("SELECT 'it''s")).toBe("'\\c\r");
    expect(mysqlCancelLine("SELECT 'it''s'")).toBe("\\c\r");
    expect(mysqlCancelLine('SELECT "a\'b" ')).toBe("\\c\r");
    expect(mysqlCancelLine("SELECT 1 -- it's")).toBe("\\c\r");
    expect(mysqlCancelLine("SELECT 1 # it's")).toBe("\\c\r");
    expect(mysqlCancelLine("SELECT 1 -- it's\n, 'x")).toBe("'\\c\r");
    expect(mysqlCancelLine("SELECT 2--1, 'x")).toBe("'\\c\r"); // `--` without a space is two minus signs
    expect(mysqlCancelLine("SELECT '-- not a comment")).toBe("'\\c\r");
    expect(mysqlCancelLine("/* it's */ SELECT `a'b` ")).toBe("\\c\r");
    expect(mysqlCancelLine("SELECT 1 /* a\n 'b")).toBe("*/\\c\r");
    expect(mysqlCancelLine("SELECT '/* not a comment")).toBe("'\\c\r");
  });
});
