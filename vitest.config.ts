import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // node-pty is not thread-safe: every test file runs in its own process.
    pool: "forks",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A plain, machine-readable record of every run (.ci/run prints its totals).
    reporters: ["default", ["json", { outputFile: ".vitest-results.json" }]],
  },
});
