import type { CellStatus } from "./cell.js";

/** The kinds of {@link SessionEvent}. */
export type SessionEventType = "fired" | "done" | "notify" | "exit" | "error";

/**
 * Something that happened in a session, as `events()` yields it and the
 * `cell`, `notify` and `exit` listeners receive it.
 */
export interface SessionEvent {
  readonly type: SessionEventType;
  /** The session's name. */
  readonly session: string;
  /** The cell concerned (`fired`, `done`). */
  readonly cellId?: string;
  /** The cell's status (`fired`: running or queued; `done`: its final status). */
  readonly status?: CellStatus;
  /** Human-readable text (`notify`, `error`, `exit`). */
  readonly message?: string;
  /** The program's exit status (`exit`, and `done` cells that know it). */
  readonly exitCode?: number | null;
  /** When it happened, ISO-8601. */
  readonly ts: string;
}

/** The typed events a `Session` emits (eventemitter3). */
export interface SessionEvents {
  /** A cell was fired or settled (`type` is `"fired"` or `"done"`). */
  cell: [event: SessionEvent];
  /** The program exited (or the session was closed). */
  exit: [event: SessionEvent];
  /** `notify()` was called. */
  notify: [event: SessionEvent];
  /** Raw text as the terminal produced it. */
  data: [text: string];
  /** Every {@link SessionEvent}, whatever its type. */
  event: [event: SessionEvent];
}
