// Sample suites run by test/testing/jest-fixture.test.ts in a child Jest (ESM); never part of the project's own run.
export default {
  testEnvironment: "node",
  testMatch: ["**/*.sample.mjs"],
  transform: {},
  testTimeout: 30_000,
};
