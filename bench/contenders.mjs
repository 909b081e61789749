// The in-process contenders behind one small interface:
//   spawn({ home, maxOutputBytes?, timeoutMs? }) -> handle
//   handle.run(code) -> result      (timed)
//   handle.text(result) -> string   (the clean output, computed untimed)
//   handle.flood(code) -> result    (output thrown away where the driver can)
//   handle.close()
import { FloorShell, benchEnv, floorClean } from "./floor.mjs";

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

/**
 * The floor loop driving a bash set up by agent-tty's own shellIntegration()
 * detector (its rc file, its cell encoding): what the shell-side hooks cost,
 * with none of agent-tty's Node-side work.
 */
const floorHooks = {
  id: "hooks",
  label: "floor + SI bash hooks",
  async spawn({ home }) {
    const { detectors, error } = await loadLib();
    if (error) throw new Error(error);
    const d = detectors.shellIntegration();
    // The ready mark is an internal of shell-integration.ts: skip, not fail, when it moves.
    if (typeof d.markPrefix !== "string") throw new Error("SKIP: shellIntegration() has no markPrefix any more");
    const plan = await d.setup({ command: "bash", args: ["--norc", "--noprofile"], cwd: home, env: benchEnv(home) });
    // bash's prompt opens with the detector's status mark (its only prompt mark) and keeps the PS1 it
    // is started with (the floor's, which ends with the floor's mark, where the floor loop waits for
    // it). Under --norc the init file comes from PROMPT_COMMAND.
    if (typeof plan.env.PROMPT_COMMAND !== "string")
      throw new Error("SKIP: shellIntegration() no longer loads bash's init file from PROMPT_COMMAND");
    const sh = await FloorShell.spawn({ home, plan });
    // The detector hears what a session would tell it (every write, and the marks of a cell), so a
    // cell is encoded as the library sends it (the clear key only when needed; after a flood, whose
    // output is not searched, always).
    d.inputWritten?.("");
    const marks = new RegExp(`\\x1b\\](${d.markPrefix}[^\\x07]*)\\x07`, "g");
    const send = async (code, feed) => {
      const bytes = d.encode?.(code) ?? `${code}\r`;
      d.inputWritten?.(bytes);
      const r = await sh.runBytes(bytes);
      if (feed && r.raw !== undefined) for (const [, mark] of r.raw.matchAll(marks)) d.feed({ mark });
      return r;
    };
    return {
      run: (code) => send(code, true),
      flood: (code) => send(code, false),
      text: (r) => floorClean(r.raw),
      exitCode: (r) => r.exitCode,
      // dispose() removes the detector's init file (if no prompt it was fed removed it).
      close: () => sh.close().then(() => d.dispose?.()),
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
  // The same floor again, measured as if it were another contender: how far apart two identical
  // programs land in this run (the A/A noise line).
  { ...floor, id: "floor2", label: "floor (A/A)" },
  floorHooks,
  // The floor's visible prompt ("$ "), as the other contenders get one of theirs: bash's default
  // (`\s-\v\$ `, 8 bytes more, decoded each prompt) would charge the prompt's text to agent-tty.
  libContender("si", "agent-tty shellIntegration", (d) => d.shellIntegration(), {
    args: ["--norc", "--noprofile"],
    env: { PS1: "$ " },
  }),
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
