import { execFileSync } from "node:child_process";

/**
 * Whether the terminal is in non-canonical ("raw") mode, as a program that
 * waits for a reply to a terminal query puts it. In canonical mode a reply
 * would only be echoed and then typed into whatever reads next. Reads the
 * mode with `stty` (only called when a query appears, which is rare); where
 * that fails, answers as a terminal would.
 */
export function terminalIsRaw(ptsName: string | undefined): boolean {
  if (ptsName === undefined) return true;
  try {
    const settings = execFileSync("stty", ["-F", ptsName, "-a"], { encoding: "utf8", timeout: 1_000, stdio: ["ignore", "pipe", "ignore"] });
    return /(^|\s)-icanon(\s|$)/.test(settings);
  } catch {
    return true;
  }
}
