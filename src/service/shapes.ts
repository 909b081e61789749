/**
 * The JSON shapes transports answer with: names and shapes as in the
 * library (camelCase), dates as ISO-8601 strings.
 */
import type { CellResult, SessionActivity, SessionState } from "../index.js";
import type { CellRecord, ControlHolder, SessionEntry } from "./registry.js";

/** One session as `GET /api/sessions` lists it: `manager.list()` plus activity, control and cells. */
export interface SessionView {
  readonly name: string;
  readonly label: string | null;
  readonly description: string | null;
  readonly command: string;
  readonly pid: number | null;
  readonly state: SessionState;
  readonly activity: SessionActivity;
  readonly activeCell: { readonly id: string; readonly code: string; readonly startedAt: string } | null;
  readonly createdAt: string;
  /** The person holding the terminal, or null. */
  readonly control: { readonly via: string; readonly since: string } | null;
  /** True after a timed-out cell, until interrupted. */
  readonly needsRecovery: boolean;
  readonly cols: number;
  readonly rows: number;
}

/** A cell as listings show it. */
export interface CellView {
  readonly cellId: string;
  readonly code: string;
  readonly status: string;
  readonly exitCode: number | null;
  readonly startedAt: string;
  readonly durationMs: number | null;
}

/** A {@link CellResult} as JSON. */
export type CellResultView = Omit<CellResult, "startedAt"> & { readonly startedAt: string };

/** A session's listing row. */
export function sessionView(entry: SessionEntry): SessionView {
  const sh = entry.session;
  const active = sh.activeCell;
  return {
    name: entry.name,
    label: sh.label ?? null,
    description: sh.description ?? null,
    command: entry.commandLine,
    pid: sh.pid ?? null,
    state: sh.state,
    activity: sh.activity,
    activeCell: active === null ? null : { id: active.id, code: active.code, startedAt: active.startedAt.toISOString() },
    createdAt: entry.createdAt.toISOString(),
    control: controlView(entry.control),
    needsRecovery: entry.needsRecovery !== null,
    cols: sh.cols,
    rows: sh.rows,
  };
}

/** Who holds the terminal, as JSON. */
export function controlView(holder: ControlHolder | null): SessionView["control"] {
  return holder === null ? null : { via: holder.via, since: holder.since.toISOString() };
}

/** A cell record as JSON. */
export function cellView(cell: CellRecord): CellView {
  return {
    cellId: cell.cellId,
    code: cell.code,
    status: cell.status,
    exitCode: cell.exitCode,
    startedAt: cell.startedAt.toISOString(),
    durationMs: cell.durationMs,
  };
}

/** A cell result as JSON. */
export function cellResultView(result: CellResult): CellResultView {
  return { ...result, startedAt: result.startedAt.toISOString() };
}

/** The debug view of a session: state, raw and clean tails, last error, recent signals. */
export function debugView(entry: SessionEntry): Record<string, unknown> {
  const sh = entry.session;
  return {
    ...sessionView(entry),
    needsRecoveryCell: entry.needsRecovery?.cellId ?? null,
    lastError: entry.lastError,
    rawTail: entry.rawTail,
    cleanTail: sh.state === "closed" ? "" : sh.history(40),
    screen: sh.state === "closed" ? "" : sh.screen(),
    signals: entry.signals.map((s) => ({ event: s.event, payload: s.payload, at: s.at.toISOString(), taken: s.taken })),
    cells: entry.cells.map(cellView),
    detector: sh.detector.name,
  };
}
