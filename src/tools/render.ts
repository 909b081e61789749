import stripAnsi from "strip-ansi";
import type { CellResult } from "../index.js";
import type { RunningOutcome, ScreenOutcome, ToolErrorOutcome, ToolOutcome } from "./outcome.js";

/** Options of {@link renderOutcome}. */
export interface RenderOptions {
  /**
   * Characters of program output kept per result (head and tail; the cut is said in one line).
   * @default 16000
   */
  readonly maxOutputChars?: number;
}

/**
 * Makes terminal text safe for a model: no escape sequences (CSI, OSC, DCS,
 * 8-bit C1), no control characters but `\n` and `\t`, carriage-return
 * redraws collapsed to what the line finally showed.
 */
export function sanitizeForModel(text: string): string {
  const stripped = stripAnsi(text)
    // What strip-ansi leaves: lone ESC, 8-bit C1 controls (CSI 0x9b, OSC 0x9d…) and their parameters.
    .replace(/\x9b[0-?]*[ -/]*[@-~]/g, "")
    .replace(/[\x90\x9d\x9e\x9f][^\x07\x9c]*(\x07|\x9c)?/g, "")
    .replace(/\r\n/g, "\n");
  const lines = stripped.split("\n").map((line) => {
    const parts = line.split("\r").filter((part) => part !== "");
    const shown = parts.length === 0 ? "" : (parts[parts.length - 1] ?? "");
    return shown.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "");
  });
  return lines.join("\n");
}

/** Keeps the head and tail of `text` within `maxChars`; says what was cut. */
export function cutOutput(
  text: string,
  maxChars: number,
  resume?: { session: string; cellId: string },
): { text: string; omittedChars: number } {
  if (text.length <= maxChars) return { text, omittedChars: 0 };
  const headChars = Math.floor(maxChars * 0.4);
  const tailChars = maxChars - headChars;
  let head = text.slice(0, headChars);
  let tail = text.slice(text.length - tailChars);
  // Cut at line boundaries when one is near, so no line is shown half.
  const headBreak = head.lastIndexOf("\n");
  if (headBreak > headChars * 0.75) head = head.slice(0, headBreak);
  const tailBreak = tail.indexOf("\n");
  if (tailBreak >= 0 && tailBreak < tailChars * 0.25) tail = tail.slice(tailBreak + 1);
  const omitted = text.length - head.length - tail.length;
  const omittedLines = text.slice(head.length, text.length - tail.length).split("\n").length - 1;
  const how =
    resume === undefined
      ? ""
      : `; terminal_output ${JSON.stringify({ session: resume.session, cellId: resume.cellId, offset: head.length })} reads them`;
  return { text: `${head}\n[… ${omitted} characters (${omittedLines} lines) omitted${how} …]\n${tail}`, omittedChars: omitted };
}

function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
}

function quote(text: string, max = 80): string {
  const one = sanitizeForModel(text).replace(/\s+/g, " ").trim();
  return JSON.stringify(one.length > max ? `${one.slice(0, max - 1)}…` : one);
}

function statusLine(fields: {
  status: string;
  exit: string;
  cwd: string | undefined;
  duration: string;
  session: string;
  cell: string;
}): string {
  return `status: ${fields.status} | exit: ${fields.exit} | cwd: ${fields.cwd === undefined ? "n/a" : sanitizeForModel(fields.cwd)} | ${fields.duration} | session: ${fields.session} | cell: ${fields.cell}`;
}

function body(output: string, maxChars: number, resume: { session: string; cellId: string }): string {
  const clean = sanitizeForModel(output).replace(/\s+$/, "");
  if (clean === "") return "(no output)";
  return cutOutput(clean, maxChars, resume).text;
}

function lastLine(output: string): string {
  const lines = sanitizeForModel(output)
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line !== "");
  return lines[lines.length - 1] ?? "";
}

function renderCell(session: string, result: CellResult, maxChars: number): string {
  const resume = { session, cellId: result.cellId };
  const exit = result.exitCode === null ? (result.status === "done" ? "n/a" : "none") : String(result.exitCode);
  const head = statusLine({
    status: result.status,
    exit,
    cwd: result.cwd,
    duration: seconds(result.durationMs),
    session,
    cell: result.cellId,
  });
  const text = `${head}\n${body(result.output, maxChars, resume)}`;
  const s = JSON.stringify(session);
  switch (result.status) {
    case "done":
      return text;
    case "awaiting_input": {
      const question = lastLine(result.output);
      return `${text}\n→ The program is waiting for input${question === "" ? "" : ` (it asked: ${quote(question, 200)})`}. Answer with terminal_send {"session":${s},"text":"…\\n"} (end with \\n to press Enter), or stop it with terminal_interrupt {"session":${s}}.`;
    }
    case "timeout":
      return `${text}\n→ The cell hit its time limit and may still be running; it holds session ${s} (cell ${result.cellId}). Call terminal_wait {"session":${s}} to keep waiting, terminal_send to type input, or terminal_interrupt {"session":${s}} to stop it.`;
    case "interrupted":
      return `${text}\n→ The cell was interrupted (Ctrl-C); session ${s} is ready for the next cell.`;
    case "exited":
      return `${text}\n→ The program exited${result.exitCode === null ? "" : ` with code ${result.exitCode}`}; session ${s} is gone. Open a new one with terminal_open.`;
  }
}

function renderRunning(outcome: RunningOutcome, maxChars: number): string {
  const s = JSON.stringify(outcome.session);
  const head = statusLine({
    status: "running",
    exit: "none yet",
    cwd: undefined,
    duration: `${seconds(outcome.elapsedMs)} so far`,
    session: outcome.session,
    cell: outcome.cellId,
  });
  const sofar = sanitizeForModel(outcome.output).replace(/\s+$/, "");
  const shown = sofar === "" ? "(no output yet)" : cutOutput(sofar, maxChars, { session: outcome.session, cellId: outcome.cellId }).text;
  return `${head}\n${shown}\n→ Still running after ${seconds(outcome.waitedMs)} of waiting; cell ${outcome.cellId} (${quote(outcome.code, 60)}) holds session ${s}. Call terminal_wait {"session":${s}} to keep waiting, terminal_send to type input, or terminal_interrupt {"session":${s}} to stop it. Other sessions are free to use.`;
}

function renderScreen(outcome: ScreenOutcome, maxChars: number): string {
  const parts: string[] = [];
  if (outcome.sent !== undefined) {
    const what = [
      outcome.sent.text === undefined ? undefined : `typed ${quote(outcome.sent.text, 120)}`,
      outcome.sent.keys === undefined ? undefined : `pressed ${outcome.sent.keys.join(", ")}`,
    ].filter((item) => item !== undefined);
    parts.push(`Sent to session ${JSON.stringify(outcome.session)}: ${what.join(" and ") || "nothing"}.`);
  }
  const cell =
    outcome.activeCell === null
      ? "no cell running"
      : `cell ${outcome.activeCell.id} (${quote(outcome.activeCell.code, 60)}) ${outcome.activity === "awaiting_input" ? "waiting for input" : "running"}`;
  parts.push(`screen of session ${JSON.stringify(outcome.session)} | state: ${outcome.state} | ${cell}`);
  const screen = sanitizeForModel(outcome.screen).replace(/\s+$/, "");
  parts.push(screen === "" ? "(blank screen)" : cutOutput(screen, maxChars).text);
  return parts.join("\n");
}

function renderError(outcome: ToolErrorOutcome): string {
  const message = sanitizeForModel(outcome.message);
  const s = outcome.session === undefined ? undefined : JSON.stringify(outcome.session);
  switch (outcome.code) {
    case "ERR_SESSION_BUSY": {
      const what =
        outcome.cellActivity === "awaiting_input"
          ? `is waiting for input in cell ${outcome.cellId}: answer it with terminal_send {"session":${s},"text":"…\\n"} or stop it with terminal_interrupt {"session":${s}}`
          : outcome.cellActivity === "timed_out"
            ? `is still held by cell ${outcome.cellId}, which timed out and may still be running: terminal_wait {"session":${s}} waits for it, terminal_interrupt {"session":${s}} stops it`
            : `is busy running cell ${outcome.cellId}: terminal_wait {"session":${s}} waits for it, terminal_interrupt {"session":${s}} stops it`;
      return `Not run: session ${s} ${what}. Nothing was typed. For parallel work, open another session with terminal_open.`;
    }
    case "ERR_REFUSED":
      return `Refused: ${message}. Nothing was run. Do something else, or ask the user.`;
    case "ERR_UNKNOWN_SESSION": {
      const open = outcome.openSessions ?? [];
      return `Error: there is no open session named ${s}. ${open.length === 0 ? "No session is open" : `Open sessions: ${open.map((name) => JSON.stringify(name)).join(", ")}`}; start one with terminal_open.`;
    }
    case "ERR_SESSION_CLOSED":
      return `Error: ${message}. Start a new session with terminal_open.`;
    case "ERR_INVALID_ARGUMENT":
      return `Error: ${message}. Fix the input and call ${outcome.tool} again.`;
    case "ERR_UNKNOWN_CELL":
      return outcome.tool === "terminal_wait"
        ? `Nothing to wait for: no cell has run in session ${s} yet. Run one with terminal_run.`
        : `Error: ${message}.`;
    default:
      return `Error (${outcome.code}) in ${outcome.tool}: ${message}.`;
  }
}

/**
 * The text a model reads for a tool outcome: for a cell, one status line
 * (status, exit code, cwd, duration, session, cell id), then the output
 * (sanitized, cut to `maxOutputChars` with head and tail kept and the cut
 * said), then one line saying what to do next when the cell is not simply
 * done. Errors are plain sentences naming the tool that helps.
 */
export function renderOutcome(outcome: ToolOutcome, options: RenderOptions = {}): string {
  const maxChars = options.maxOutputChars ?? 16_000;
  switch (outcome.kind) {
    case "opened":
      return `Opened session ${JSON.stringify(outcome.session)}: ${quote([outcome.command, ...outcome.args].join(" "), 120)} (pid ${outcome.pid ?? "n/a"}, cwd ${sanitizeForModel(outcome.cwd)}). It is ready: run code with terminal_run {"session":${JSON.stringify(outcome.session)},"code":"…"}.`;
    case "cell":
      return renderCell(outcome.session, outcome.result, maxChars);
    case "running":
      return renderRunning(outcome, maxChars);
    case "screen":
      return renderScreen(outcome, maxChars);
    case "nothing_to_interrupt":
      return `Nothing to interrupt: no cell is running in session ${JSON.stringify(outcome.session)}.`;
    case "output": {
      const end = outcome.offset + outcome.text.length;
      const more =
        end < outcome.totalChars
          ? ` Next: terminal_output ${JSON.stringify({ session: outcome.session, cellId: outcome.cellId, offset: end })}.`
          : " (end of output)";
      return `output of cell ${outcome.cellId} (${outcome.status}), characters ${outcome.offset}–${end} of ${outcome.totalChars}:${more}\n${sanitizeForModel(outcome.text)}`;
    }
    case "sessions": {
      if (outcome.sessions.length === 0) return `No sessions are open (at most ${outcome.maxSessions}). Start one with terminal_open.`;
      const rows = outcome.sessions.map((info) => {
        const fields = [
          JSON.stringify(info.name),
          `command ${quote(info.command, 60)}`,
          info.label === undefined ? undefined : `label ${quote(info.label, 80)}`,
          `state ${info.state}`,
          info.activeCell === null
            ? "idle"
            : `${info.activity === "awaiting_input" ? "waiting for input in" : "running"} cell ${info.activeCell.id} ${quote(info.activeCell.code, 60)} for ${seconds(Date.now() - info.activeCell.startedAt.getTime())}`,
          info.description === undefined ? undefined : `about: ${quote(info.description, 160)}`,
        ];
        return `- ${fields.filter((field) => field !== undefined).join(" | ")}`;
      });
      return `${outcome.sessions.length} open session${outcome.sessions.length === 1 ? "" : "s"} (at most ${outcome.maxSessions}):\n${rows.join("\n")}`;
    }
    case "closed":
      return outcome.existed
        ? `Closed session ${JSON.stringify(outcome.session)}.`
        : `There was no open session named ${JSON.stringify(outcome.session)}; nothing to close.`;
    case "error":
      return renderError(outcome);
  }
}
