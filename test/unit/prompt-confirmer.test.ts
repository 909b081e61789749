import { describe, expect, it } from "vitest";
import { PromptConfirmer } from "../../src/detect/confirm.js";
import type { DetectorIo, FrameEnd } from "../../src/detect/types.js";

function fakeIo(answers: (boolean | undefined)[]) {
  const ended: FrameEnd[] = [];
  let asked = 0;
  const io: DetectorIo = {
    write: () => undefined,
    endFrame: (end) => ended.push(end ?? {}),
    waitingForInput: () => answers[Math.min(asked++, answers.length - 1)],
  };
  return { io, ended, asked: () => asked };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("PromptConfirmer", () => {
  it("a program seen waiting is confirmed at once: the frame end is returned in the same call", () => {
    const { io, ended } = fakeIo([true]);
    const confirmer = new PromptConfirmer(() => io);
    expect(confirmer.confirm(() => ({ exitCode: 0 }))).toEqual({ exitCode: 0 });
    expect(ended).toEqual([]);
  });

  it("where the system cannot tell, the prompt is taken as it is", () => {
    const { io } = fakeIo([undefined]);
    expect(new PromptConfirmer(() => io).confirm(() => ({}))).toEqual({});
  });

  it("a program not waiting yet is checked again on later turns, and the frame ends through endFrame once it waits", async () => {
    const { io, ended, asked } = fakeIo([false, false, true]);
    const confirmer = new PromptConfirmer(() => io);
    let acted = 0;
    expect(
      confirmer.confirm(() => {
        acted++;
        return { note: "ok" };
      }),
    ).toBeUndefined();
    expect(acted).toBe(0);
    for (let index = 0; index < 10 && ended.length === 0; index++) await turn();
    expect(asked()).toBe(3);
    expect(acted).toBe(1);
    expect(ended).toEqual([{ note: "ok" }]);
  });

  it("something new arriving (cancel) drops a pending check: the look-alike never acts", async () => {
    const { io, ended } = fakeIo([false, true]);
    const confirmer = new PromptConfirmer(() => io);
    let acted = 0;
    confirmer.confirm(() => {
      acted++;
      return {};
    });
    confirmer.cancel();
    for (let index = 0; index < 10; index++) await turn();
    expect(acted).toBe(0);
    expect(ended).toEqual([]);
  });

  it("lingering: a program seen waiting is confirmed two turns later, through endFrame, unless something new arrived meanwhile", async () => {
    const { io, ended } = fakeIo([true]);
    const confirmer = new PromptConfirmer(() => io, { lingering: true });
    expect(confirmer.confirm(() => ({ exitCode: 1 }))).toBeUndefined();
    expect(ended).toEqual([]);
    await turn();
    await turn();
    await turn();
    expect(ended).toEqual([{ exitCode: 1 }]);

    confirmer.confirm(() => ({ exitCode: 2 }));
    await turn();
    confirmer.cancel();
    for (let index = 0; index < 10; index++) await turn();
    expect(ended).toEqual([{ exitCode: 1 }]);
  });
});
