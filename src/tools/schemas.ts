import * as z from "zod/v4";
import { isValidSessionName, MAX_SESSION_NAME_LENGTH, SESSION_NAME_CHARACTERS } from "../names.js";

/*
 * One zod input schema per terminal operation, with descriptions written for
 * a model. `zod/v4` exists in zod 3.25+ and zod 4, which is what the AI SDK
 * (6 and 7), @langchain/core 1.x and the MCP SDK accept.
 */

const session = z.string().min(1).describe("The session's name, as terminal_open returned it (terminal_list shows every open session).");

/** Input fields of `terminal_open`. */
export const terminalOpenShape = {
  name: z
    .string()
    .max(MAX_SESSION_NAME_LENGTH)
    .regex(SESSION_NAME_CHARACTERS, "letters, digits, '_', '.', '-' only")
    .refine(isValidSessionName, "not only dots, and never '..'")
    .optional()
    .describe("A short name for the new session (letters, digits, _ . -). Default: derived from the command, e.g. 'bash' or 'python3-2'."),
  command: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The program to start. Default: bash. Start a REPL directly to keep its state between calls: python3, node, psql, sqlite3, gdb…",
    ),
  args: z.array(z.string()).optional().describe('Arguments for the command, e.g. ["-q"].'),
  cwd: z.string().min(1).optional().describe("Working directory to start in. Default: the host's configured directory."),
  label: z.string().optional().describe("A few words saying what this session is for; shown by terminal_list."),
  description: z.string().optional().describe("Longer free text about the session; shown by terminal_list."),
};

/** Input fields of `terminal_run`. */
export const terminalRunShape = {
  session,
  code: z
    .string()
    .min(1)
    .describe(
      "What to run, as typed at the prompt: a shell command line, or a block of code for a REPL (several lines are fine). Do not add a trailing newline.",
    ),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "How long to wait for the cell before returning (milliseconds). The command is NOT stopped when this passes: you get the output so far with status 'running', and continue with terminal_wait, terminal_send or terminal_interrupt. Default: the host's soft wait (30 s unless configured).",
    ),
  untilInput: z
    .boolean()
    .optional()
    .describe(
      "Return as soon as the program waits for keyboard input (status 'awaiting_input'), so you can answer with terminal_send. Default: true.",
    ),
};

/** Input fields of `terminal_send`. */
export const terminalSendShape = {
  session,
  text: z.string().optional().describe('Text to type, literally. Nothing is added: end it with \\n to press Enter (e.g. "yes\\n").'),
  keys: z
    .array(z.string())
    .optional()
    .describe(
      "Named keys to press after the text, in order: enter, tab, esc, backspace, delete, up, down, left, right, home, end, pageup, pagedown, f1…f12, space, ctrl+c, ctrl+d, alt+x, shift+tab, or single characters.",
    ),
  wait: z
    .boolean()
    .optional()
    .describe(
      "Wait for the running cell's next result (done, awaiting_input again, or the soft wait passing) and return it. With no cell running, returns the screen once output settles. Default: true.",
    ),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("How long to wait when `wait` is true (milliseconds); the program is not stopped when it passes."),
};

/** Input fields of `terminal_wait`. */
export const terminalWaitShape = {
  session,
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("How long to wait this time (milliseconds). Nothing is stopped when it passes. Default: the host's soft wait."),
};

/** Input fields of `terminal_screen`. */
export const terminalScreenShape = { session };

/** Input fields of `terminal_interrupt`. */
export const terminalInterruptShape = {
  session,
  force: z
    .boolean()
    .optional()
    .describe(
      "Free the session even if the program's prompt does not come back after Ctrl-C and it is not waiting for input (the next command may then be typed into a command that is still running). Use only after a plain interrupt left the session timed out. Default: false.",
    ),
};

/** Input fields of `terminal_list`. */
export const terminalListShape = {};

/** Input fields of `terminal_close`. */
export const terminalCloseShape = { session };

/** Input fields of `terminal_output`. */
export const terminalOutputShape = {
  session,
  cellId: z.string().min(1).describe("The cell whose output to read (each result's status line names its cell)."),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Character offset to start reading at; the cut notice of a shortened result gives it. Default: 0."),
  maxChars: z.number().int().positive().optional().describe("Most characters to return. Default: the host's output budget."),
};

/** The zod input schema of every terminal tool, by tool name. */
export const terminalToolSchemas = {
  terminal_open: z.object(terminalOpenShape),
  terminal_run: z.object(terminalRunShape),
  terminal_send: z.object(terminalSendShape),
  terminal_wait: z.object(terminalWaitShape),
  terminal_screen: z.object(terminalScreenShape),
  terminal_interrupt: z.object(terminalInterruptShape),
  terminal_output: z.object(terminalOutputShape),
  terminal_list: z.object(terminalListShape),
  terminal_close: z.object(terminalCloseShape),
} as const;

/** The name of a terminal tool. */
export type TerminalToolName = keyof typeof terminalToolSchemas;

/** The names of every terminal tool, in the order they are offered. */
export const TERMINAL_TOOL_NAMES: readonly TerminalToolName[] = Object.freeze(Object.keys(terminalToolSchemas) as TerminalToolName[]);

/** The parsed input of each terminal tool, by tool name. */
export type TerminalToolInputs = { [K in TerminalToolName]: z.infer<(typeof terminalToolSchemas)[K]> };

/** The input of `terminal_open`. */
export type TerminalOpenInput = TerminalToolInputs["terminal_open"];
/** The input of `terminal_run`. */
export type TerminalRunInput = TerminalToolInputs["terminal_run"];
/** The input of `terminal_send`. */
export type TerminalSendInput = TerminalToolInputs["terminal_send"];
/** The input of `terminal_wait`. */
export type TerminalWaitInput = TerminalToolInputs["terminal_wait"];
/** The input of `terminal_output`. */
export type TerminalOutputInput = TerminalToolInputs["terminal_output"];

/** Hints for hosts (MCP tool annotations use the same names). */
export interface TerminalToolAnnotations {
  /** A short human title. */
  readonly title: string;
  /** The tool changes nothing. */
  readonly readOnlyHint: boolean;
  /** The tool may destroy state (a running program, a session). */
  readonly destructiveHint: boolean;
  /** Calling it twice with the same input does nothing more. */
  readonly idempotentHint: boolean;
  /** The tool reaches beyond the host (a terminal can reach anything). */
  readonly openWorldHint: boolean;
}

/** What each tool does, worded for a model. */
export const terminalToolDescriptions: Readonly<Record<TerminalToolName, string>> = Object.freeze({
  terminal_open:
    "Start a persistent terminal session (default: bash) and return its name. A session keeps its state between calls — working directory, variables, a running REPL such as python3 — until terminal_close. Open one session per independent task; a session runs one cell at a time.",
  terminal_run:
    "Run code in a session as one cell: a shell command line, or a block of code for a REPL. Returns one status line (status, exit code, cwd, duration, cell id) and the cell's output. Status 'awaiting_input' means the program asked something: answer with terminal_send. Status 'running' means the soft wait passed and the command is still going: continue with terminal_wait, terminal_send or terminal_interrupt. Long output is shortened (start and end kept); terminal_output reads the rest.",
  terminal_send:
    'Type text and/or press keys in a session: answer a program\'s question (text "yes\\n"), drive a full-screen program (keys ["esc", ":", "q", "enter"]) or stop one (keys ["ctrl+c"]). By default it then waits for the running cell\'s next result; with no cell running it returns the screen.',
  terminal_wait:
    "Keep waiting for the cell running in a session (after terminal_run returned status 'running'). Returns its result, or its output so far if it is still running when timeoutMs passes. With nothing running, returns the last cell's result.",
  terminal_screen:
    "Show what a person would see on the session's terminal now (the visible rows). Use it for full-screen programs (vim, less, top) and to look at a session without changing it.",
  terminal_interrupt:
    "Press Ctrl-C in a session to stop its running cell, and return that cell's result. The session stays open and ready for the next cell.",
  terminal_output:
    "Read a cell's full output, or a part of it, when a result was shortened. Give the cell id from the status line and the offset from the cut notice.",
  terminal_list: "List the open terminal sessions: name, command, label, state and the cell each one is running.",
  terminal_close: "End a session and its program. Anything still running in it is killed.",
});

/** Host hints per tool (read-only, destructive…), for MCP annotations and UIs. */
export const terminalToolAnnotations: Readonly<Record<TerminalToolName, TerminalToolAnnotations>> = Object.freeze({
  terminal_open: { title: "Open a terminal", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  terminal_run: { title: "Run in a terminal", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  terminal_send: { title: "Type in a terminal", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  terminal_wait: { title: "Wait for a terminal", readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  terminal_screen: { title: "Look at a terminal", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  terminal_interrupt: {
    title: "Interrupt a terminal",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  terminal_output: {
    title: "Read a cell's output",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  terminal_list: { title: "List terminals", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  terminal_close: { title: "Close a terminal", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
});
