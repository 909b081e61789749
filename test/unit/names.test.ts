import { describe, expect, it } from "vitest";
import { isValidSessionName as kAccepts } from "../../src/cli/shared/protocol.js";
import { assertSessionName } from "../../src/options.js";
import { SessionName } from "../../src/server/schemas.js";
import { terminalOpenShape } from "../../src/tools/schemas.js";

const valid = ["a", "work", "my.session-1_x", ".hidden", "x".repeat(128), "A-Z_0.9"];
const invalid = ["", ".", "..", "...", "a..b", "x".repeat(129), "a b", "a/b", "é", "a\nb"];

const surfaces: Array<[string, (name: string) => boolean]> = [
  [
    "the library (Session.spawn, SessionManager)",
    (name) => {
      try {
        assertSessionName(name);
        return true;
      } catch {
        return false;
      }
    },
  ],
  ["the k client", (name) => kAccepts(name)],
  ["the HTTP API", (name) => SessionName.safeParse(name).success],
  ["the tool set", (name) => terminalOpenShape.name.safeParse(name).success],
];

describe("session names: one rule on every surface", () => {
  for (const [surface, accepts] of surfaces) {
    it(`${surface} accepts every valid name and refuses every invalid one`, () => {
      expect(valid.filter((name) => !accepts(name))).toEqual([]);
      expect(invalid.filter((name) => accepts(name))).toEqual([]);
    });
  }
});
