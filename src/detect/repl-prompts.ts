/**
 * The prompts of the REPLs `"auto"` knows, in every state they show, and how
 * to drop an unfinished statement in each. One place, so the detectors and
 * the tests read the same patterns.
 */

/** The prompts of one REPL: ready for a new statement, and waiting for the rest of one. */
export interface ReplPrompts {
  /** The program waits for a new statement. */
  readonly prompt: RegExp;
  /** The program waits for the rest of a statement (a continuation prompt), if it has one. */
  readonly continuation?: RegExp;
}

/**
 * psql's default prompts (`%/%R%x%# `): the database name; `%R` (`=` ready, `^` single-line mode,
 * `@` inside an inactive `\if` branch; in a continuation `-` statement, `*` comment, `'` `"` `$`
 * quotes, `(` bracket); `%x` (`*` in a transaction, `!` in a failed one, `?` unknown); `#` for a
 * superuser, `>` otherwise. Once the connection is lost for good: `!?> ` (no database).
 */
export const PSQL = {
  prompt: /^(?:[^\s]*[=^@]|!)[*!?]?[#>] $/,
  // The name must not end with a ready mark: `postgres=*# ` is the ready prompt in a transaction.
  continuation: /^(?:[^\s]*[^\s=^@!])?[-*'"$(][*!?]?[#>] $/,
} satisfies ReplPrompts;

/**
 * sqlite3: `sqlite> `, and `   ...> ` for the rest of a statement (3.43+ may show what it
 * awaits in the first three columns: `(x1...> ` one bracket open, `'  ...> ` in a string).
 */
export const SQLITE3 = {
  prompt: /^sqlite> $/,
  continuation: /^(?: *|.{3})\.\.\.> $/,
} satisfies ReplPrompts;

/** python: `>>> `, and `... ` inside a block, an open bracket or a triple-quoted string. */
export const PYTHON = { prompt: /^>>> $/, continuation: /^\.\.\. $/ } satisfies ReplPrompts;

/** node: `> `, and `... ` for the rest of an expression. */
export const NODE = { prompt: /^> $/, continuation: /^\.\.\. $/ } satisfies ReplPrompts;

/** gdb: `(gdb) `. */
export const GDB = { prompt: /^\(gdb\) $/ } satisfies ReplPrompts;

/**
 * redis-cli: the server's address (`127.0.0.1:6379`, `[::1]:6379`, `redis /path/to.sock` over a
 * Unix socket), `[n]` once a database other than 0 is selected, `(TX)` inside MULTI; `not
 * connected> ` without a server. No continuation prompt (every line is a command).
 */
export const REDIS_CLI = {
  prompt: /^(?:[\w.:%[\]-]+|redis [^\s]+|not connected)(?:\[\d+\])?(?:\(TX\))?> $/,
} satisfies ReplPrompts;

/**
 * The mysql / MariaDB client: `mysql> ` (Oracle's client), `MariaDB [db]> ` (MariaDB's, the
 * server's name and the current database, `(none)` before `USE`; `MySQL [db]> ` against a MySQL
 * server, `unknown [db]> ` once the connection is lost). The rest of a statement: `    -> `, in a
 * string or quoted name `    '> `, `    "> `, ``    `> ``, in a comment `   /*> ` (the same in both
 * clients, in every version).
 */
export const MYSQL = {
  prompt: /^(?:mysql|(?:MariaDB|MySQL|unknown) \[.*\])> $/,
  continuation: /^(?: {4}[-'"`]| {3}\/\*)> $/,
} satisfies ReplPrompts;

/** irb: `irb(main):001:0> `, and `*`, `"`, `'` or `(` before `>` for the rest of a statement. */
export const IRB = {
  prompt: /^irb\([^)]*\):\d+:\d+> $/,
  continuation: /^irb\([^)]*\):\d+:\d+[*"'(]> $/,
} satisfies ReplPrompts;

/** lua: `> `, and `>> ` for the rest of a statement. */
export const LUA = { prompt: /^> $/, continuation: /^>> $/ } satisfies ReplPrompts;

/**
 * What to type into sqlite3 to drop an unfinished statement without running it. Ctrl-C does not
 * (sqlite3 keeps what it read); instead this closes the quote, bracketed name or comment the
 * statement was left in, then adds a token sqlite3 cannot parse (`!`) and ends the statement
 * (`; END;` also ends a trigger body): the statement fails to compile, so nothing of it runs.
 * Statements the cell completed before it still run, as they would have at their `;`.
 */
export function sqliteCancelLine(code: string): string {
  let closer = "";
  for (let index = 0; index < code.length; index++) {
    const char = code[index] as string;
    if (closer === "") {
      if (char === "'" || char === '"' || char === "`") closer = char;
      else if (char === "[") closer = "]";
      else if (char === "/" && code[index + 1] === "*") {
        closer = "*/";
        index++;
      } else if (char === "-" && code[index + 1] === "-") {
        const end = code.indexOf("\n", index);
        if (end === -1) break;
        index = end;
      }
    } else if (code.startsWith(closer, index)) {
      index += closer.length - 1;
      closer = "";
    }
  }
  return `${closer}!; END;\r`;
}

/**
 * What to type into the mysql / MariaDB client to drop an unfinished statement without running
 * it: `\c` (clear), after closing the string, quoted name or comment the statement was left in
 * (inside one, `\c` is text). Ctrl-C does the same in recent clients, but ends the client in
 * older ones (MariaDB's before its MDEV-14448 fix, MySQL's before 5.7) when no query runs; `\c` works in all.
 * Reads the code as the client does: a backslash escapes the next character inside `'` and `"`
 * (not inside backquotes), `-- ` and `#` start a comment to the end of the line.
 */
export function mysqlCancelLine(code: string): string {
  let closer = "";
  for (let index = 0; index < code.length; index++) {
    const char = code[index] as string;
    if (closer === "") {
      if (char === "'" || char === '"' || char === "`") closer = char;
      else if (char === "/" && code[index + 1] === "*") {
        closer = "*/";
        index++;
      } else if (char === "#" || (char === "-" && code[index + 1] === "-" && /^\s?$/.test(code[index + 2] ?? ""))) {
        const end = code.indexOf("\n", index);
        if (end === -1) break;
        index = end;
      }
    } else if (char === "\\" && (closer === "'" || closer === '"')) {
      index++;
    } else if (code.startsWith(closer, index)) {
      index += closer.length - 1;
      closer = "";
    }
  }
  return `${closer}\\c\r`;
}
