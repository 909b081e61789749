/**
 * The service layer: the sessions registry, cell bookkeeping, error →
 * status mapping and JSON shapes that the `k` daemon, the HTTP server and
 * the web page share.
 */
export { SessionEntry, SessionService } from "./registry.js";
export type { CellRecord, ControlHolder, CreateInput, ServiceEvent, SessionServiceOptions, SignalRecord } from "./registry.js";
export { errorBody, httpStatus, HumanControlError, NeedsRecoveryError, NoSessionError } from "./errors.js";
export type { ErrorBody } from "./errors.js";
export { cellResultView, cellView, controlView, debugView, sessionView } from "./shapes.js";
export type { CellResultView, CellView, SessionView } from "./shapes.js";
