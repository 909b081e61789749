import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// npm run example:tests — examples of testing a REPL, a CLI and a TUI with agent-tty/vitest.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL(".", import.meta.url)),
    include: ["**/*.test.ts"],
    // node-pty is not thread-safe: run test files in processes.
    pool: "forks",
    testTimeout: 30_000,
  },
});
