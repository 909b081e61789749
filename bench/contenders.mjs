// The in-process contenders behind one small interface:
//   spawn({ home, maxOutputBytes?, timeoutMs? }) -> handle
//   handle.run(code) -> result      (timed)
//   handle.text(result) -> string   (the clean output, computed untimed)
//   handle.flood(code) -> result    (output thrown away where the driver can)
//   handle.close()
import { FloorShell, floorClean } from "./floor.mjs";

const PROMPT = "bench$ ";

let lib;
/** The built library, or { error } when dist/ is missing or broken. */
export async function loadLib() {
  if (!lib) {
    try {
      lib = await import("../dist/index.js");
    } catch (e) {
      lib = { error: `dist/index.js not loadable (${e.code ?? e.message})` };
    }
  }
  return lib;
}

const floor = {
  id: "floor",
  label: "node-pty floor",
  async spawn({ home }) {
    const sh = await FloorShell.spawn({ home });
    return {
      run: (code) => sh.run(code),
      flood: (code) => sh.runDiscard(code),
      text: (r) => floorClean(r.raw),
      exitCode: (r) => r.exitCode,
      close: () => sh.close(),
    };
  },
};

function libContender(id, label, detectorOf, extra) {
  return {
    id,
    label,
    async spawn({ home, maxOutputBytes, timeoutMs = 60_000 }) {
      const { Session, detectors, error } = await loadLib();
      if (error) throw new Error(error);
      const sh = await Session.spawn({
        command: "bash",
        cwd: home,
        env: { HOME: home, ...extra.env },
        args: extra.args,
        detector: detectorOf(detectors),
        timeoutMs,
        ...(maxOutputBytes ? { maxOutputBytes } : {}),
      });
      return {
        session: sh,
        run: (code) => sh.run(code),
        flood: (code) => sh.run(code),
        text: (r) => r.output,
        exitCode: (r) => r.exitCode,
        close: () => sh.close(),
      };
    },
  };
}

export const CONTENDERS = [
  floor,
  libContender("si", "agent-tty shellIntegration", (d) => d.shellIntegration(), { args: [], env: {} }),
  libContender("prompt", "agent-tty prompt", (d) => d.prompt(PROMPT), {
    args: ["--norc", "--noprofile"],
    env: { PS1: PROMPT },
  }),
  libContender("repeat", "agent-tty repeatEnter", (d) => d.repeatEnter(), {
    args: ["--norc", "--noprofile"],
    env: { PS1: "$ " },
  }),
];

export const byId = (id) => CONTENDERS.find((c) => c.id === id);
