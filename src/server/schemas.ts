/**
 * Request and answer schemas of the REST API: requests are validated with
 * them and the OpenAPI 3.1 document is generated from them. Fields the
 * tool set (`agent-tty/tools`) defines are reused from its schemas.
 */
import { z } from "@hono/zod-openapi";
import { isValidSessionName, MAX_SESSION_NAME_LENGTH, SESSION_NAME_CHARACTERS } from "../names.js";
import { terminalOpenShape, terminalRunShape, terminalSendShape } from "../tools/schemas.js";

/** A session name: `[A-Za-z0-9_.-]+`, not only dots, never `..`. */
export const SessionName = z
  .string()
  .min(1)
  .max(MAX_SESSION_NAME_LENGTH)
  .regex(SESSION_NAME_CHARACTERS, "a session name is made of A-Z a-z 0-9 _ . -")
  .refine(isValidSessionName, "a session name has a character other than '.', and never '..'")
  .openapi({ param: { name: "name", in: "path" }, example: "work" });

export const NameParams = z.object({ name: SessionName });
export const CellParams = z.object({
  name: SessionName,
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "3f2a9c01b7d4" }),
});

/** The tool set's fields (`terminal_open`), plus what only HTTP offers: a detector choice and the size. */
export const OpenBody = z
  .object({
    ...terminalOpenShape,
    name: SessionName.optional(),
    detector: z.enum(["auto", "external"]).optional().openapi({ description: '"external": turns end by POST …/signal (TUI agent CLIs)' }),
    readyOn: z
      .enum(["quiet", "signal"])
      .optional()
      .openapi({ description: 'with detector "external": ready once quiet (default) or on the first signal' }),
    cols: z.number().int().min(10).max(1000).optional(),
    rows: z.number().int().min(2).max(500).optional(),
  })
  .strict()
  .openapi("OpenSession");

export const RunBody = z
  .object({
    code: terminalRunShape.code,
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(24 * 3600_000)
      .optional(),
    untilInput: z.boolean().optional(),
    queue: z.boolean().optional(),
  })
  .strict()
  .openapi("RunCell");

export const InputBody = z
  .object({
    text: terminalSendShape.text,
    keys: terminalSendShape.keys,
  })
  .strict()
  .openapi("Input");

export const SignalBody = z
  .object({
    event: z.enum(["stop", "error"]).default("stop"),
    payload: z.unknown().optional(),
  })
  .strict()
  .openapi("Signal");

export const AskBody = z
  .object({
    prompt: z
      .string()
      .min(1)
      .max(1 << 20),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(24 * 3600_000)
      .optional(),
  })
  .strict()
  .openapi("Ask");

export const HistoryQuery = z.object({
  lines: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .openapi({ param: { name: "lines", in: "query" }, example: 50 }),
});

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      activeCellId: z.string().optional(),
      session: z.string().optional(),
      cellId: z.string().optional(),
    }),
  })
  .openapi("Error");

export const SessionInfoSchema = z
  .object({
    name: z.string(),
    label: z.string().nullable(),
    description: z.string().nullable(),
    command: z.string(),
    pid: z.number().nullable(),
    state: z.enum(["starting", "idle", "busy", "timed_out", "exited", "closed"]),
    activity: z.enum(["idle", "running", "awaiting_input", "exited"]),
    activeCell: z.object({ id: z.string(), code: z.string(), startedAt: z.string() }).nullable(),
    createdAt: z.string(),
    control: z.object({ via: z.string(), since: z.string() }).nullable(),
    needsRecovery: z.boolean(),
    cols: z.number(),
    rows: z.number(),
  })
  .openapi("SessionInfo");

const CellStatusSchema = z.enum(["queued", "running", "awaiting_input", "done", "timeout", "interrupted", "exited"]);

export const CellResultSchema = z
  .object({
    cellId: z.string(),
    code: z.string(),
    status: CellStatusSchema,
    output: z.string(),
    raw: z.string(),
    exitCode: z.number().nullable(),
    durationMs: z.number(),
    truncated: z.boolean(),
    omittedBytes: z.number(),
    rawOmittedBytes: z.number(),
    decidedBy: z.string(),
    cwd: z.string().optional(),
    startedAt: z.string(),
  })
  .openapi("CellResult");

export const CellSnapshotSchema = z
  .object({ cellId: z.string(), status: CellStatusSchema, output: z.string().optional(), exitCode: z.number().nullable().optional() })
  .openapi("CellSnapshot");

export const CellViewSchema = z
  .object({
    cellId: z.string(),
    code: z.string(),
    status: z.string(),
    exitCode: z.number().nullable(),
    startedAt: z.string(),
    durationMs: z.number().nullable(),
  })
  .openapi("CellSummary");
