/**
 * This package's version, as `k --version` prints it and as the client sends
 * it to the daemon (a daemon of another version with no session steps down).
 */
import { readFileSync } from "node:fs";

/** `agent-tty <version>`, the version read from the package.json next to dist/. */
export function versionLine(): string {
  return `agent-tty ${packageVersion()}`;
}

/** This package's version, or "unknown". */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version?: string };
    return pkg.version ?? "unknown";
  } catch {
    return "unknown";
  }
}
