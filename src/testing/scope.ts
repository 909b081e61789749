import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { Session, type Recording, type SessionOptions } from "../index.js";
import { describeValue, invalidArgument } from "../errors.js";
import { quote, visibleRows } from "./matchers.js";

/** Options of the `terminal` fixture (Vitest) and `useTerminal()` (Jest). */
export interface TerminalFixtureOptions {
  /** Options given to every session; each `terminal(options)` call's own options win. */
  readonly defaults?: SessionOptions;
  /**
   * A directory where a failing test leaves an asciicast v2 recording
   * (`.cast`) of each of its sessions, like a Playwright trace; the
   * failure message names the files. Recordings of passing tests are
   * deleted. Off when not set.
   */
  readonly recordOnFailure?: string;
  /**
   * Lines of each session's transcript (`history()`) in a failure message.
   * @default 30
   */
  readonly transcriptLines?: number;
}

/** Spawns a session that lives exactly as long as the test: `Session.spawn` with the test's lifetime. */
export type TerminalFunction = (options?: SessionOptions) => Promise<Session>;

const DEFAULT_TRANSCRIPT_LINES = 30;

interface Tracked {
  readonly session: Session;
  readonly recording: Recording | undefined;
}

/** Validates fixture options; throws `ERR_INVALID_ARGUMENT`. */
export function normalizeFixtureOptions(
  options: unknown,
): Required<Pick<TerminalFixtureOptions, "transcriptLines">> & TerminalFixtureOptions {
  if (options === undefined) return { transcriptLines: DEFAULT_TRANSCRIPT_LINES };
  if (typeof options !== "object" || options === null)
    throw invalidArgument(`Expected the terminal fixture's options to be an object, got ${describeValue(options)}`);
  const given = options as TerminalFixtureOptions;
  for (const key of Object.keys(given)) {
    if (!["defaults", "recordOnFailure", "transcriptLines"].includes(key)) {
      throw invalidArgument(`Unknown terminal fixture option \`${key}\`; expected defaults, recordOnFailure or transcriptLines`);
    }
  }
  if (given.recordOnFailure !== undefined && (typeof given.recordOnFailure !== "string" || given.recordOnFailure === "")) {
    throw invalidArgument(`Expected \`recordOnFailure\` to be a directory path, got ${describeValue(given.recordOnFailure)}`);
  }
  const lines = given.transcriptLines ?? DEFAULT_TRANSCRIPT_LINES;
  if (!Number.isSafeInteger(lines) || lines < 0)
    throw invalidArgument(`Expected \`transcriptLines\` to be a non-negative integer, got ${describeValue(lines)}`);
  return { ...given, transcriptLines: lines };
}

/** A file-name-safe version of a test's name. */
function slug(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9_.-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "test"
  );
}

/**
 * The sessions of one test: spawns them, describes them when the test
 * fails, closes them all when it ends. Framework-neutral: the Vitest
 * fixture and Jest's `useTerminal()` are thin layers over it.
 */
export class TerminalScope {
  readonly #options: ReturnType<typeof normalizeFixtureOptions>;
  readonly #testName: string;
  readonly #tracked: Tracked[] = [];
  #finished = false;
  #finishing: Promise<string[]> | undefined;

  constructor(options: TerminalFixtureOptions | undefined, testName: string) {
    this.#options = normalizeFixtureOptions(options);
    this.#testName = testName;
  }

  /** The sessions spawned so far, in order. */
  get sessions(): readonly Session[] {
    return this.#tracked.map((tracked) => tracked.session);
  }

  /** `Session.spawn` with the defaults, tracked for closing (and recording, with `recordOnFailure`). */
  readonly spawn: TerminalFunction = async (options = {}) => {
    if (this.#finished) throw invalidArgument("terminal() was called after its test ended; call it inside the test");
    const session = await Session.spawn({ ...this.#options.defaults, ...options });
    let recording: Recording | undefined;
    const dir = this.#options.recordOnFailure;
    if (dir !== undefined) {
      try {
        mkdirSync(dir, { recursive: true });
        const file = resolve(join(dir, `${slug(this.#testName)}-${this.#tracked.length + 1}-${session.name}.cast`));
        recording = session.record(file, { title: `${this.#testName} — ${session.name}` });
      } catch (error) {
        await session.close();
        throw error;
      }
    }
    this.#tracked.push({ session, recording });
    if (this.#finished) {
      // The test ended while this session was starting: it must not outlive it.
      await this.#closeAll();
      throw invalidArgument("terminal() resolved after its test ended; await it inside the test");
    }
    return session;
  };

  /**
   * What a person needs to see when the test failed: each session's last
   * screen (trailing blank rows left out), the tail of its transcript and
   * its recording's path. Call before {@link TerminalScope.finish}.
   */
  report(): string {
    return this.#tracked.map((tracked, index) => this.#describe(tracked, index)).join("\n\n");
  }

  #describe({ session, recording }: Tracked, index: number): string {
    const parts = [
      `── terminal ${index + 1}: session '${session.name}' (${session.command}, pid ${session.pid ?? "?"}, state ${session.state}, ${session.cols}×${session.rows}) ──`,
    ];
    let screen: string | undefined;
    try {
      screen = session.screen();
    } catch {
      screen = undefined;
    }
    if (screen === undefined) parts.push("last screen: (the session was closed by the test)");
    else {
      const rows = visibleRows(screen);
      const shown = rows === "" ? 0 : rows.split("\n").length;
      parts.push(`last screen (rows 1-${shown} of ${session.rows}; the rest blank):\n${quote(rows)}`);
    }
    const lines = this.#options.transcriptLines;
    if (lines > 0) parts.push(`transcript (last ${lines} lines):\n${quote(session.history(lines))}`);
    if (recording !== undefined) parts.push(`recording: ${recording.path}`);
    return parts.join("\n");
  }

  /**
   * Ends the test's sessions: closes every one (their processes are gone
   * when this resolves), stops the recordings, keeps them if `failed` and
   * deletes them otherwise. Returns the paths of the recordings kept.
   * Idempotent; never rejects.
   */
  finish(failed: boolean): Promise<string[]> {
    this.#finishing ??= this.#finish(failed);
    return this.#finishing;
  }

  async #finish(failed: boolean): Promise<string[]> {
    this.#finished = true;
    await this.#closeAll();
    const kept: string[] = [];
    for (const { recording } of this.#tracked) {
      if (recording === undefined) continue;
      recording.stop();
      if (failed) kept.push(recording.path);
      else rmSync(recording.path, { force: true });
    }
    return kept;
  }

  async #closeAll(): Promise<void> {
    await Promise.allSettled(this.#tracked.map(({ session }) => session.close()));
  }
}
