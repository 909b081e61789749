import { childProcess } from "../internal/builtins.js";

/**
 * Whether the terminal is in non-canonical ("raw") mode, as a program that
 * waits for a reply to a terminal query puts it. In canonical mode a reply
 * would only be echoed and then typed into whatever reads next. Reads the
 * mode with `stty` in a child process (the event loop is not held); where
 * that fails, answers as a terminal would (raw).
 */
export function terminalIsRaw(ptsName: string | undefined): Promise<boolean> {
  if (ptsName === undefined) return Promise.resolve(true);
  return new Promise((resolve) => {
    childProcess().execFile("stty", ["-F", ptsName, "-a"], { encoding: "utf8", timeout: 1_000 }, (error, settings) => {
      resolve(error === null ? /(^|\s)-icanon(\s|$)/.test(settings) : true);
    });
  });
}
