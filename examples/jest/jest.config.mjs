// npm run example:tests — the Jest example (native ESM: run Jest with node --experimental-vm-modules).
import { fileURLToPath } from "node:url";

export default {
  rootDir: fileURLToPath(new URL(".", import.meta.url)),
  testEnvironment: "node",
  testMatch: ["**/*.test.mjs"],
  transform: {},
  testTimeout: 30_000,
};
