import { defineConfig } from "vitest/config";

// Sample suites run by test/testing/*.test.ts in a child Vitest; never part of the project's own run.
export default defineConfig({
  test: {
    pool: "forks",
    include: ["**/*.sample.ts"],
    testTimeout: 30_000,
  },
});
