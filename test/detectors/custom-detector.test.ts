import { describe, expect, it } from "vitest";
import type { DetectorInput, FeedResult, FrameDetector } from "../../src/index.js";
import { spawnSession } from "../helpers/sessions.js";

/** bash with a prompt of our own, no rc files, no line editor (so the echo is one plain line). */
const bash = { command: "bash", args: ["--norc", "--noprofile", "--noediting"], env: { PS1: "READY> " } };

const atPrompt = (event: DetectorInput): boolean => "line" in event && event.partial && event.line === "READY> ";

describe("a detector a user writes", () => {
  it("in the first form (a bare FrameEnd, { echo: true }) frames bash's cells", async () => {
    let typed = "";
    const detector: FrameDetector = {
      name: "first-form",
      encode: (code) => {
        typed = code;
        return `${code}\r`;
      },
      feed: (event) => {
        if (atPrompt(event)) return { exitCode: null };
        if ("line" in event && !event.partial && event.line === `READY> ${typed}`) return { echo: true };
        return undefined;
      },
    };
    const sh = await spawnSession({ ...bash, detector });
    expect(await sh.run("echo one; echo two")).toMatchObject({ status: "done", output: "one\ntwo", decidedBy: "first-form" });
    expect(await sh.run("echo three")).toMatchObject({ status: "done", output: "three" });
  });

  it("in the tagged form ({ kind: 'end' }, { kind: 'echo' }) frames the same cells the same way", async () => {
    let typed = "";
    const detector: FrameDetector = {
      name: "tagged",
      encode: (code) => {
        typed = code;
        return `${code}\r`;
      },
      feed: (event) => {
        if (atPrompt(event)) return { kind: "end", exitCode: null };
        if ("line" in event && !event.partial && event.line === `READY> ${typed}`) return { kind: "echo" };
        return undefined;
      },
    };
    const sh = await spawnSession({ ...bash, detector });
    expect(await sh.run("echo one; echo two")).toMatchObject({ status: "done", output: "one\ntwo", decidedBy: "tagged" });
    expect(await sh.run("echo three")).toMatchObject({ status: "done", output: "three" });
  });

  it("answering with a Promise ends the frame it was asked in, and a late answer never ends the next cell", async () => {
    const detector: FrameDetector = {
      name: "async",
      feed: (event): FeedResult | Promise<FeedResult> => {
        if (atPrompt(event)) return Promise.resolve({});
        // A line that makes the detector answer "ready" long after the cell has ended.
        if ("line" in event && !event.partial && event.line === "SLOW-MARKER") {
          return new Promise((resolve) => setTimeout(() => resolve({}), 400));
        }
        return undefined;
      },
    };
    const sh = await spawnSession({ ...bash, detector });
    expect((await sh.run("echo SLOW-MARKER")).output).toContain("SLOW-MARKER");
    // Still running when the late answer arrives: it must run to its own prompt.
    const second = await sh.run("sleep 0.8; echo second-done");
    expect(second).toMatchObject({ status: "done" });
    expect(second.output).toContain("second-done");
  });
});
