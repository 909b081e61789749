export { Session } from "./session.js";
export type { ActiveCell, ExpectOptions, InterruptOptions, OutputOptions, SessionActivity, SessionState, WaitOptions } from "./session.js";
export type { ExpectMatch } from "./expect.js";
export { SessionManager } from "./manager.js";
export type { SessionInfo, SessionManagerOptions } from "./manager.js";
export { Cell } from "./cell.js";
export type {
  AwaitingInputCellResult,
  CellResult,
  CellResultBase,
  CellSnapshot,
  CellStatus,
  DecidedBy,
  DoneCellResult,
  ExitedCellResult,
  FinalCellStatus,
  StoppedCellResult,
} from "./cell.js";
export { detectors } from "./detect/index.js";
export { autoDetector } from "./detect/auto.js";
export type { ExternalDetector, ExternalOptions } from "./detect/external.js";
export type { HookFunction, HookOptions } from "./detect/hook.js";
export type { IdleOptions } from "./detect/idle.js";
export type { InputWaitOptions } from "./detect/input-wait.js";
export type { PromptOptions } from "./detect/prompt.js";
export type { RepeatEnterOptions } from "./detect/repeat-enter.js";
export type {
  DetectorInput,
  DetectorIo,
  FeedResult,
  ForegroundProgram,
  FrameDetector,
  FrameEnd,
  FrameSignal,
  SpawnPlan,
  Verdict,
} from "./detect/types.js";
export type { LeftProgram, NestedProgram, NestingChange } from "./detect/nested.js";
export type { ShellIntegrationOptions } from "./detect/shell-integration/index.js";
export { AgentTtyError, CellTimeoutError, HumanControlError, SessionBusyError, SessionClosedError, SpawnError } from "./errors.js";
export type { AgentTtyErrorCode, AgentTtyErrorOptions } from "./errors.js";
export type {
  CellDoneEvent,
  CellFiredEvent,
  ErrorEvent,
  ExitEvent,
  NotifyEvent,
  SessionEvent,
  SessionEventType,
  SessionEvents,
} from "./events.js";
export { SESSION_DEFAULTS } from "./options.js";
export { Recording } from "./record/recording.js";
export type { RecordOptions } from "./record/recording.js";
export { AsciicastWriter, parseAsciicast, readAsciicast } from "./record/asciicast.js";
export type { Asciicast, AsciicastEvent, AsciicastHeader, AsciicastWriterOptions } from "./record/asciicast.js";
export type { CellOptions, SessionOptions } from "./options.js";
