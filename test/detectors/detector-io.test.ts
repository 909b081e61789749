import { describe, expect, it } from "vitest";
import type { DetectorInput, DetectorIo, FrameDetector } from "../../src/index.js";
import { spawnSession } from "../helpers/sessions.js";

/** bash with a prompt of our own, no rc files, no line editor (so the echo is one plain line). */
const bash = { command: "bash", args: ["--norc", "--noprofile", "--noediting"], env: { PS1: "READY> " } };

const atPrompt = (event: DetectorInput): boolean => "line" in event && event.partial && event.line === "READY> ";

describe("the io a detector's attach() gets", () => {
  it("is a plain object of its own functions: a copy of it ({ ...io }) and a detached endFrame still end frames", async () => {
    let copy: DetectorIo | undefined;
    let endFrame: DetectorIo["endFrame"] | undefined;
    let prompts = 0;
    const detector: FrameDetector = {
      name: "io-copy",
      attach: (io) => {
        copy = { ...io };
        endFrame = io.endFrame;
      },
      feed: (event) => {
        if (!atPrompt(event)) return undefined;
        // A late verdict, every other one through the copy, the rest through the detached function.
        const end = prompts++ % 2 === 0 ? copy?.endFrame : endFrame;
        setTimeout(() => end?.({ exitCode: null }), 0);
        return undefined;
      },
    };
    const sh = await spawnSession({ ...bash, detector });
    expect(typeof copy?.write).toBe("function");
    expect(typeof copy?.waitingForInput).toBe("function");
    expect(await sh.run("echo one")).toMatchObject({ status: "done" });
    expect(await sh.run("echo two")).toMatchObject({ status: "done" });
  });
});
