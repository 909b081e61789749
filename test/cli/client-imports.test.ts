/**
 * Every `k` call is a new process, so the client's start-up is its cost: the
 * `k`/`km` client (src/cli/client) and what it loads up front must stay on
 * node built-ins and the small shared modules, never the library (node-pty,
 * xterm) or the daemon. Dynamic `import()`s (loaded only on rare paths) are
 * not followed.
 */
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const SRC = join(ROOT, "src");

/** The static import specifiers of a TypeScript file (`import … from`, `export … from`, side-effect imports). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"/gm)) {
    found.push((match[1] ?? match[2]) as string);
  }
  return found;
}

/** The files loaded up front from `entries`, and the bare (package) specifiers they name. */
function loadedUpFront(entries: string[]): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith(".")) queue.push(resolve(dirname(file), spec).replace(/\.js$/, ".ts"));
      else packages.add(spec);
    }
  }
  return { files: [...files].map((f) => relative(SRC, f)).sort(), packages: [...packages].sort() };
}

describe("the k client's import graph", () => {
  const graph = loadedUpFront(["cli/client/run-k.ts", "cli/client/run-km.ts", "cli/k.ts", "cli/km.ts"].map((f) => join(SRC, f)));

  it("reaches only the client, the shared modules and the dependency-free names rule", () => {
    expect(graph.files).toContain("cli/client/run-k.ts");
    expect(graph.files).toContain("cli/shared/protocol.ts"); // the walk does follow imports
    const outside = graph.files.filter((f) => !f.startsWith("cli/client/") && !f.startsWith("cli/shared/") && !/^cli\/k[m]?\.ts$/.test(f));
    expect(outside).toEqual(["names.ts"]);
  });

  it("imports node built-ins only, no package", () => {
    expect(graph.packages.length).toBeGreaterThan(0);
    const notBuiltin = graph.packages.filter((spec) => !(spec.startsWith("node:") && builtinModules.includes(spec.slice(5))));
    expect(notBuiltin).toEqual([]);
  });

  it("the shared modules import nothing from the daemon or the library", () => {
    const shared = loadedUpFront(
      ["messages", "paths", "protocol", "python", "version"].map((name) => join(SRC, "cli", "shared", `${name}.ts`)),
    );
    expect(shared.files.filter((f) => !f.startsWith("cli/shared/"))).toEqual(["names.ts"]);
  });
});
