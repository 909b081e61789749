const BLOCK_CONTINUATION = /^(else|elif|except|finally)\b/;
// A compound statement opens a block even with its body on the same line (`for x in y: f(x)`).
const COMPOUND = /^(async\s+)?(for|while|if|elif|else|try|except|finally|with|def|class|match)\b|^@/;

/**
 * Turns a cell into the lines a careful person would type into python's
 * REPL: blank lines inside blocks dropped (they would end the block), a
 * blank line after a block that top-level code follows, and one after a
 * block at the end. Lines inside triple-quoted strings are kept as written.
 */
export function pythonReplLines(code: string): string[] {
  const lines: string[] = [];
  let inBlock = false;
  let inString: string | undefined;
  for (const line of code.split("\n")) {
    if (inString !== undefined) {
      lines.push(line);
      if (countOf(line, inString) % 2 === 1) inString = undefined;
      continue;
    }
    if (line.trim() === "") continue;
    const indented = /^\s/.test(line);
    if (!indented && inBlock && !BLOCK_CONTINUATION.test(line)) lines.push("");
    lines.push(line);
    inBlock = indented || line.trimEnd().endsWith(":") || COMPOUND.test(line);
    for (const quote of ['"""', "'''"]) {
      if (countOf(line, quote) % 2 === 1) inString = quote;
    }
  }
  if (inBlock) lines.push("");
  return lines;
}

function countOf(text: string, part: string): number {
  let count = 0;
  for (let index = text.indexOf(part); index !== -1; index = text.indexOf(part, index + part.length)) count++;
  return count;
}
