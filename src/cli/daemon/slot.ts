/**
 * One session of the daemon and the CLI's bookkeeping around it: what the
 * original CLI kept in files (the cell lock, unread results, the filtered
 * log), km's listeners, and who is attached.
 *
 * {@link Slot} holds the lock rules — who may start a cell, what a finished
 * cell leaves behind, what a poll answers and consumes, what an interrupt
 * frees — as pure methods: no terminal, no socket, no clock, so they are
 * unit-tested on their own (test/unit/daemon-slot.test.ts). {@link LiveSlot}
 * binds a slot to its running session.
 */
import type { CellResult, Session } from "../../index.js";
import { CappedMap } from "../../internal/capped-map.js";
import type { SessionEntry } from "../../service/index.js";
import { CELL_ID } from "../shared/protocol.js";
import type { PyValue } from "../shared/python.js";
import { WatchLog } from "./watch-log.js";

/** A cell result as `k` prints it (keys in this order). */
export type CellJson = { [key: string]: PyValue | undefined } & { cell_id: string; status: string };

/** A km event (without `ts`, added when sent). */
export type KmEvent = { [key: string]: string };

/** How a cell was started: `k run` waits for it, `k fire` leaves its result for `k poll`. */
export type CellKind = "run" | "fire";

/** How a cell ended, as km reports it. */
export type KmEndStatus = "done" | "timeout" | "interrupted";

/** The state word of `k status` and `k ls`. */
export type SlotState = "idle" | "running" | "timeout" | "done";

/** The original's lock file, kept in memory: which cell owns the session. */
export interface Lock {
  readonly cellId: string;
  readonly kind: CellKind;
  /** The cell timed out: the session stays locked until `k int` or `k kill`. */
  timedOut: boolean;
  /** `k poll` already reported the timeout once (the next poll says what to do). */
  timeoutPolled: boolean;
  /** A fired cell that finished: the next cell may take the lock. */
  completed: boolean;
}

/** What `k poll` answers: the JSON it prints and its exit status. */
export interface PollAnswer {
  readonly json: { [key: string]: PyValue | undefined };
  readonly exit: 0 | 1;
}

/** A session's terminal width while no one is attached (`k attach` resizes it to the person's terminal meanwhile). */
export const DEFAULT_COLS = 200;
/** A session's terminal height while no one is attached. */
export const DEFAULT_ROWS = 50;
/** Unread cell results kept per session (the oldest is dropped beyond). */
export const RESULT_CAPACITY = 100;
/** Final km statuses kept per session, for monitors that arrive late. */
export const SETTLED_CAPACITY = RESULT_CAPACITY * 2;

/** Formats a finished cell the way `k` prints it (`killed`: the session was killed under it). */
export function cellJson(result: CellResult, killed: boolean): CellJson {
  const id = result.cellId;
  switch (result.status) {
    case "timeout":
      return { cell_id: id, status: "timeout", output: "" };
    case "interrupted":
      return { cell_id: id, status: "error", output: "interrupted" };
    case "exited":
      if (killed) return { cell_id: id, status: "error", output: "killed" };
      return { cell_id: id, status: "done", output: result.output, exit_code: result.exitCode ?? undefined, exited: true };
    default:
      return {
        cell_id: id,
        status: "done",
        output: result.output,
        exit_code: typeof result.exitCode === "number" ? result.exitCode : undefined,
        cwd: result.cwd ?? undefined,
      };
  }
}

/** How a finished cell ended, as km reports it. */
export function kmStatus(result: CellResult): KmEndStatus {
  if (result.status === "timeout") return "timeout";
  if (result.status === "interrupted") return "interrupted";
  return "done";
}

/**
 * The CLI's bookkeeping of one session, and its lock rules:
 *
 * - one cell at a time: a cell holds the lock from `k run`/`k fire` until it
 *   is over for the CLI — a run cell when it settles, a fired cell when its
 *   result is polled (a fired cell that finished lets the next cell start
 *   even before that), a timed-out cell only by `k int` or `k kill`;
 * - no agent cell while a person is attached (`k attach`);
 * - reading a final result with `k poll` consumes it; a timeout is reported
 *   as the cell's result once, then as what to do;
 * - an interrupt ends the cell holding the lock as "interrupted".
 */
export class Slot {
  #lock: Lock | null = null;
  readonly #results = new CappedMap<string, CellJson>(RESULT_CAPACITY);
  readonly #settled = new CappedMap<string, string>(SETTLED_CAPACITY);
  readonly #listeners = new Set<(event: KmEvent) => void>();
  readonly #closeListeners = new Set<() => void>();
  #attached = 0;
  #closed = false;
  /** The filtered view `k watch` streams and `k history` tails. */
  readonly log = new WatchLog();
  /** Set while the session is being killed: its cells end "killed", not "exited". */
  killing = false;

  /**
   * @param name - the session's name.
   * @param command - the command line as the user gave it (`k ls` shows it).
   * @param cols - the terminal's width while no one is attached.
   * @param rows - the terminal's height while no one is attached.
   */
  constructor(
    readonly name: string,
    readonly command: string = "bash",
    readonly cols: number = DEFAULT_COLS,
    readonly rows: number = DEFAULT_ROWS,
  ) {}

  /** The cell holding the session, if any. */
  get lock(): Readonly<Lock> | null {
    return this.#lock;
  }

  /** Whether the session ended (its slot is gone from the daemon). */
  get closed(): boolean {
    return this.#closed;
  }

  /** How many `k attach` clients hold the terminal. */
  get attached(): number {
    return this.#attached;
  }

  /** The state word of `k status` / `k ls`, and the cell it is about. */
  state(): { state: SlotState; cell?: string } {
    const lock = this.#lock;
    if (lock === null) return { state: "idle" };
    if (lock.completed) return { state: "done", cell: lock.cellId };
    if (lock.timedOut) return { state: "timeout", cell: lock.cellId };
    return { state: "running", cell: lock.cellId };
  }

  // ── cells ────────────────────────────────────────────────────────────

  /**
   * Why a cell may not start now, or `null` when it may.
   * @param humanInControl - whether a person holds the terminal (`k attach`, the web page).
   */
  refusal(humanInControl: boolean): string | null {
    if (humanInControl) return `human attached to '${this.name}'; agent cells are refused until they detach (Ctrl-] in k attach)`;
    const lock = this.#lock;
    if (lock !== null && !lock.completed) return `active cell '${lock.cellId}'`;
    return null;
  }

  /** A cell started (after {@link refusal} said it may): it takes the lock; watchers and km hear of it. */
  begin(cellId: string, kind: CellKind): void {
    this.#lock = { cellId, kind, timedOut: false, timeoutPolled: false, completed: false };
    this.log.mark({ kind: "fired", cellId });
    this.emit({ cell_id: cellId, session: this.name, status: "fired" });
  }

  /**
   * A cell settled: updates the lock (a timeout keeps it; an interrupted or
   * run cell frees it; a fired cell marks it completed), keeps the result for
   * `k poll` (fired cells, timeouts, interrupts), tells watchers and km.
   * Returns the result as `k` prints it.
   */
  settle(kind: CellKind, result: CellResult): CellJson {
    const json = cellJson(result, this.killing);
    const lock = this.#lock;
    const owns = lock !== null && lock.cellId === result.cellId;
    switch (result.status) {
      case "timeout":
        if (owns) lock.timedOut = true;
        this.#remember(result.cellId, json);
        break;
      case "interrupted":
        if (owns) this.#lock = null;
        this.#remember(result.cellId, json);
        break;
      default:
        if (owns) {
          if (kind === "run") this.#lock = null;
          else lock.completed = true;
        }
        if (kind === "fire") this.#remember(result.cellId, json);
    }
    const status = kmStatus(result);
    this.log.mark({ kind: "end", status, exitCode: result.exitCode });
    this.emit({ cell_id: result.cellId, session: this.name, status });
    return json;
  }

  /** Whether `cellId` still holds the session and has not timed out (a `k run` client that goes away interrupts it). */
  isRunning(cellId: string): boolean {
    return this.#lock !== null && this.#lock.cellId === cellId && !this.#lock.timedOut;
  }

  /**
   * `k poll [cell]`: the cell's result (which a final result consumes, with
   * the lock it held), its state while it runs, or why there is none.
   * @param cellId - the cell asked about; `null`: the one holding the lock.
   * @param awaitingInput - whether the running cell waits for input now.
   */
  poll(cellId: string | null, awaitingInput: boolean): PollAnswer {
    if (cellId === null) {
      if (this.#lock === null) return { json: { status: "error", output: `no active cell on '${this.name}'` }, exit: 1 };
      cellId = this.#lock.cellId;
    }
    if (!CELL_ID.test(cellId)) return { json: { status: "error", output: "invalid cell_id" }, exit: 1 };
    const lock = this.#lock;
    const owns = lock !== null && lock.cellId === cellId;
    const stored = this.#results.get(cellId);
    if (stored !== undefined) {
      if (stored.status === "timeout") {
        if (owns && lock.timeoutPolled) return { json: { cell_id: cellId, status: "timeout", output: "use k int or k kill" }, exit: 1 };
        if (owns) lock.timeoutPolled = true;
        return { json: stored, exit: 0 };
      }
      // Reading a final result consumes it, and frees the lock it held.
      if (owns) this.#lock = null;
      this.#results.delete(cellId);
      return { json: stored, exit: 0 };
    }
    if (!owns) return { json: { cell_id: cellId, status: "error", output: "unknown cell" }, exit: 1 };
    if (lock.completed) {
      this.#lock = null;
      return { json: { cell_id: cellId, status: "error", output: "result missing" }, exit: 1 };
    }
    if (lock.timedOut) return { json: { cell_id: cellId, status: "timeout", output: "use k int or k kill" }, exit: 1 };
    return { json: { cell_id: cellId, status: "running", awaiting_input: awaitingInput ? true : undefined }, exit: 0 };
  }

  /**
   * Before Ctrl-C: a fired cell that already finished has nothing to
   * interrupt, so its lock is simply given back. Returns whether it was.
   */
  releaseCompleted(): boolean {
    if (this.#lock?.completed !== true) return false;
    this.#lock = null;
    return true;
  }

  /**
   * After a successful Ctrl-C: the cell that held the lock when it was sent
   * (`lock`, read before) ends "interrupted" — its result says so, and if it
   * still holds the lock, the lock is freed and watchers and km hear of it
   * (unless its own settling told them already).
   */
  interrupted(lock: Readonly<Lock> | null): void {
    if (lock === null) return;
    const json: CellJson = { cell_id: lock.cellId, status: "error", output: "interrupted" };
    if (this.#lock !== lock) {
      this.#remember(lock.cellId, json);
      return;
    }
    this.#lock = null;
    this.#remember(lock.cellId, json);
    if (this.#settled.get(lock.cellId) !== "interrupted") {
      this.log.mark({ kind: "end", status: "interrupted" });
      this.emit({ cell_id: lock.cellId, session: this.name, status: "interrupted" });
    }
  }

  #remember(cellId: string, json: CellJson): void {
    // A result stored again counts as new: it moves to the end of the line.
    this.#results.delete(cellId);
    this.#results.set(cellId, json);
  }

  // ── km events ────────────────────────────────────────────────────────

  /** Tells km's monitors; a cell's final status is also kept for monitors that come later. */
  emit(event: KmEvent): void {
    const cellId = event["cell_id"];
    if (cellId !== undefined && event["status"] !== "fired") this.#settled.set(cellId, event["status"] ?? "done");
    for (const listener of this.#listeners) listener(event);
  }

  /** The km status a recent cell ended with, if it did. */
  settledStatus(cellId: string): string | undefined {
    return this.#settled.get(cellId);
  }

  /** Calls `listener` with every km event from now on; returns the unsubscribe. */
  subscribe(listener: (event: KmEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ── attach and close ─────────────────────────────────────────────────

  /** A `k attach` client holds the terminal. */
  attach(): void {
    this.#attached++;
  }

  /** A `k attach` client let go; returns whether it was the last one (the terminal may take its own size back). */
  detach(): boolean {
    if (this.#attached > 0) this.#attached--;
    return this.#attached === 0;
  }

  /** Calls `listener` once when the session ends; returns the unsubscribe. */
  onClose(listener: () => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** The session ended: km hears "closed", watchers and attached clients are ended. Returns false if it had already. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.emit({ session: this.name, status: "closed" });
    for (const listener of [...this.#closeListeners]) listener();
    return true;
  }
}

/** A {@link Slot} bound to its running session. */
export class LiveSlot extends Slot {
  /** The session. */
  readonly sh: Session;

  /**
   * @param entry - the session's entry in the service layer (control, interrupts, recorded cells).
   * @param command - the command line as the user gave it.
   * @param cols - the terminal's width while no one is attached.
   * @param rows - the terminal's height while no one is attached.
   */
  constructor(
    readonly entry: SessionEntry,
    command: string,
    cols: number,
    rows: number,
  ) {
    super(entry.name, command, cols, rows);
    this.sh = entry.session;
  }
}
