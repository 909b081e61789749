/**
 * `k new <session> <cmd...>` takes a command line (the words joined by
 * spaces, as the original did for tmux). This splits it into a program and
 * its arguments the way `sh` would for simple words, so the program is
 * started directly (and its kind recognised); anything needing a real shell
 * (pipes, globs, `$VAR`, …) is reported as such.
 */

/** How to start a command line. */
export interface CommandPlan {
  /** Leading `NAME=value` words (and those after `env`). */
  env: Record<string, string>;
  /** Program and arguments, or null when the line needs `sh -c`. */
  argv: string[] | null;
}

const SHELL_SPECIAL = new Set([..."|&;<>()$`*?[]{}!#~"]);

/** Splits `line` into words, or returns null where shell syntax is needed. */
export function splitWords(line: string): string[] | null {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] ?? "";
    if (ch === " " || ch === "\t" || ch === "\n") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return null;
      word += line.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        const c = line[j] ?? "";
        if (c === "$" || c === "`") return null;
        if (c === "\\" && j + 1 < line.length && '"\\$`'.includes(line[j + 1] ?? "")) {
          j++;
          word += line[j];
        } else word += c;
      }
      if (j >= line.length) return null;
      i = j;
    } else if (ch === "\\") {
      if (i + 1 >= line.length) return null;
      i++;
      word += line[i];
    } else if (SHELL_SPECIAL.has(ch) && !(ch === "#" && word.length > 0) && !(ch === "~" && word.length > 0)) {
      return null;
    } else word += ch;
  }
  if (inWord) words.push(word);
  return words;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Plans how to start `line`: env assignments, then the program. */
export function planCommand(line: string): CommandPlan {
  const words = splitWords(line);
  if (words === null || words.length === 0) return { env: {}, argv: null };
  const env: Record<string, string> = {};
  let i = 0;
  const take = (): void => {
    while (i < words.length && ASSIGNMENT.test(words[i] ?? "")) {
      const word = words[i] ?? "";
      const eq = word.indexOf("=");
      env[word.slice(0, eq)] = word.slice(eq + 1);
      i++;
    }
  };
  take();
  if (words[i] === "env" || words[i]?.endsWith("/env")) {
    i++;
    if (words[i]?.startsWith("-")) return { env: {}, argv: null };
    take();
  }
  if (i >= words.length) return { env: {}, argv: null };
  return { env, argv: words.slice(i) };
}
