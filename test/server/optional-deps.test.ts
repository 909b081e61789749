import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "../../dist");
const SERVER_PACKAGES = /^(hono|@hono\/|ws$|zod|@xterm\/xterm|@xterm\/addon-fit|playwright)/;

/** Every bare package a built module reaches through static and dynamic imports. */
function packagesReached(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)) {
      const specifier = match[1]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else if (!specifier.startsWith("node:")) packages.add(specifier);
    }
  };
  visit(entry);
  return packages;
}

describe("optional server packages", () => {
  it("importing agent-tty reaches none of the server's packages; agent-tty/server does", () => {
    const core = [...packagesReached(resolve(DIST, "index.js"))];
    expect(core.filter((p) => SERVER_PACKAGES.test(p))).toEqual([]);
    const server = [...packagesReached(resolve(DIST, "server/index.js"))];
    expect(server).toEqual(expect.arrayContaining(["hono/streaming", "@hono/zod-openapi", "@hono/node-server", "ws"]));
  });
});
