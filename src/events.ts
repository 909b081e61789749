import type { CellStatus } from "./cell.js";

/** The kinds of {@link SessionEvent}. */
export type SessionEventType = "fired" | "done" | "notify" | "exit" | "error";

/** What every {@link SessionEvent} carries. */
interface SessionEventBase {
  /** The session's name. */
  readonly session: string;
  /** When it happened, ISO-8601. */
  readonly ts: string;
}

/** A cell was written (`running`) or queued behind another (`queued`). */
export interface CellFiredEvent extends SessionEventBase {
  readonly type: "fired";
  /** The cell concerned. */
  readonly cellId: string;
  /** `running` once written to the program, `queued` while another cell holds the session. */
  readonly status: "running" | "queued";
  readonly message?: undefined;
  readonly exitCode?: undefined;
}

/** A cell settled. */
export interface CellDoneEvent extends SessionEventBase {
  readonly type: "done";
  /** The cell concerned. */
  readonly cellId: string;
  /** Its final status. */
  readonly status: CellStatus;
  /** Its exit status, where the detector knows it. */
  readonly exitCode?: number | null;
  readonly message?: undefined;
}

/** `notify()` or `signal()` was called. */
export interface NotifyEvent extends SessionEventBase {
  readonly type: "notify";
  /** The text given. */
  readonly message: string;
  readonly cellId?: undefined;
  readonly status?: undefined;
  readonly exitCode?: undefined;
}

/** The program exited (or the session was closed). */
export interface ExitEvent extends SessionEventBase {
  readonly type: "exit";
  /** The program's exit status (`null` when a signal ended it). */
  readonly exitCode: number | null;
  /** Human-readable text. */
  readonly message: string;
  readonly cellId?: undefined;
  readonly status?: undefined;
}

/** Something went wrong outside any call that could reject with it (a detector that threw, a lost connection). */
export interface ErrorEvent extends SessionEventBase {
  readonly type: "error";
  /** What happened. */
  readonly message: string;
  readonly cellId?: undefined;
  readonly status?: undefined;
  readonly exitCode?: undefined;
}

/**
 * Something that happened in a session, as `events()` yields it and the
 * `cell`, `notify` and `exit` listeners receive it: a union discriminated by
 * `type`, so `if (event.type === "done")` narrows to {@link CellDoneEvent}.
 * Fields a kind does not have are typed `undefined`, so reading them on the
 * union still compiles.
 */
export type SessionEvent = CellFiredEvent | CellDoneEvent | NotifyEvent | ExitEvent | ErrorEvent;

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

/** A {@link SessionEvent} before the session stamps its name and time on it (one member per kind). @internal */
export type SessionEventFields = SessionEvent extends infer Event
  ? Event extends SessionEvent
    ? Omit<Event, "session" | "ts">
    : never
  : never;
