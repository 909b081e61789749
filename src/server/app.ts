/**
 * The REST routes: each validates its input with a schema, calls the
 * service layer and answers the library's shapes. The OpenAPI 3.1
 * document is generated from the same route definitions.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { streamSSE } from "hono/streaming";
import { AgentTtyError, detectors } from "../index.js";
import { cellResultView, cellView, debugView, errorBody, httpStatus, sessionView, type SessionService } from "../service/index.js";
import type { Gate } from "./auth.js";
import { pageAsset, PAGE_HTML } from "./page.js";
import {
  AskBody,
  CellParams,
  CellResultSchema,
  CellSnapshotSchema,
  CellViewSchema,
  ErrorSchema,
  HistoryQuery,
  InputBody,
  NameParams,
  OpenBody,
  RunBody,
  SessionInfoSchema,
  SignalBody,
} from "./schemas.js";

/** Largest request body accepted (a 1 MiB cell plus JSON). */
export const MAX_BODY_BYTES = (1 << 20) + 64 * 1024;

const errors = {
  400: { description: "Invalid input", content: { "application/json": { schema: ErrorSchema } } },
  401: { description: "Missing or wrong token", content: { "application/json": { schema: ErrorSchema } } },
  404: { description: "No such session or cell", content: { "application/json": { schema: ErrorSchema } } },
  409: { description: "Busy, held by a person, needs recovery, or exists", content: { "application/json": { schema: ErrorSchema } } },
} as const;

/** Drops the keys whose value is undefined (optional fields of a parsed body). */
function defined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { content: { "application/json": { schema } }, required: true } });

/** Builds the application (routes only; the caller serves it). */
export function buildApp(service: SessionService, gate: Gate): OpenAPIHono {
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue?.path.join(".") ?? "";
        const message = `invalid request${where ? ` field \`${where}\`` : ""}: ${issue?.message ?? "bad input"}`;
        return c.json({ error: { code: "ERR_INVALID_ARGUMENT", message } }, 400);
      }
      return undefined;
    },
  });

  app.onError((error, c) => {
    if (error instanceof HTTPException && error.status < 500) {
      return c.json({ error: { code: "ERR_INVALID_ARGUMENT", message: error.message } }, error.status);
    }
    if (!(error instanceof AgentTtyError))
      console.error(`${new Date().toISOString()} agent-tty serve: ${c.req.method} ${c.req.path} failed:`, error);
    return c.json(errorBody(error), httpStatus(error));
  });
  app.notFound((c) => c.json({ error: { code: "ERR_NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` } }, 404));

  app.use("*", async (c, next) => {
    if (c.req.path === "/login") return next();
    const refusal = gate.check(c.req.method, c.req.raw.headers, { path: c.req.path });
    if (refusal !== null) {
      if (c.req.path === "/" && refusal.status === 401) return c.html(LOGIN_NEEDED, 401);
      return c.json({ error: { code: refusal.code, message: refusal.message } }, refusal.status);
    }
    return next();
  });
  app.use(
    "/api/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json({ error: { code: "ERR_INVALID_ARGUMENT", message: `request body larger than ${MAX_BODY_BYTES} bytes` } }, 413),
    }),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions",
      summary: "List sessions",
      responses: { 200: json(z.array(SessionInfoSchema), "Sessions, oldest first"), 401: errors[401] },
    }),
    (c) => c.json(service.entries().map(sessionView), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/sessions",
      summary: "Open a session (default bash)",
      request: body(OpenBody),
      responses: { 201: json(SessionInfoSchema, "The new session"), 400: errors[400], 401: errors[401], 409: errors[409] },
    }),
    async (c) => {
      const { detector, readyOn, name, ...rest } = defined(c.req.valid("json"));
      const entry = await service.create({
        ...(name === undefined ? {} : { name }),
        ...rest,
        ...(detector === "external" ? { detector: detectors.external(readyOn === undefined ? {} : { readyOn }) } : {}),
      });
      return c.json(sessionView(entry), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions/{name}",
      summary: "One session",
      request: { params: NameParams },
      responses: { 200: json(SessionInfoSchema, "The session"), 404: errors[404] },
    }),
    (c) => c.json(sessionView(service.get(c.req.valid("param").name)), 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/sessions/{name}",
      summary: "Close a session",
      request: { params: NameParams },
      responses: { 204: { description: "Closed" }, 404: errors[404] },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      service.get(name);
      await service.close(name);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/sessions/{name}/run",
      summary: "Run a cell to its settle point",
      request: { params: NameParams, ...body(RunBody) },
      responses: {
        200: json(CellResultSchema, "The cell's result (every status, timeout included)"),
        400: errors[400],
        404: errors[404],
        409: errors[409],
      },
    }),
    async (c) => {
      const { code, ...options } = defined(c.req.valid("json"));
      const entry = service.get(c.req.valid("param").name);
      // A client that goes away (a cancelled tool call, Ctrl-C in curl) interrupts its cell, as `k run` does.
      const result = await entry.run(code, { ...options, signal: c.req.raw.signal });
      return c.json(cellResultView(result), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/sessions/{name}/fire",
      summary: "Start a cell, answer at once",
      request: { params: NameParams, ...body(RunBody) },
      responses: {
        202: json(z.object({ cellId: z.string(), status: z.string() }), "Started (or queued)"),
        400: errors[400],
        404: errors[404],
        409: errors[409],
      },
    }),
    (c) => {
      const { code, untilInput: _untilInput, ...options } = defined(c.req.valid("json"));
      const cell = service.get(c.req.valid("param").name).fire(code, options);
      return c.json({ cellId: cell.id, status: cell.status }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions/{name}/cells",
      summary: "Recent cells with status and exit code",
      request: { params: NameParams },
      responses: { 200: json(z.array(CellViewSchema), "Newest last"), 404: errors[404] },
    }),
    (c) => c.json(service.get(c.req.valid("param").name).cells.map(cellView), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions/{name}/cells/{id}",
      summary: "Poll a cell",
      request: { params: CellParams },
      responses: { 200: json(CellSnapshotSchema, "poll(id)"), 404: errors[404] },
    }),
    (c) => {
      const { name, id } = c.req.valid("param");
      const snapshot = service.get(name).session.poll(id);
      if (snapshot === undefined) throw new AgentTtyError("ERR_UNKNOWN_CELL", `no cell '${id}' in session '${name}'`);
      return c.json(snapshot, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/sessions/{name}/interrupt",
      summary: "Ctrl-C the active cell (also clears 'needs recovery')",
      request: { params: NameParams },
      responses: { 200: json(CellResultSchema, "The interrupted cell"), 204: { description: "No cell was active" }, 404: errors[404] },
    }),
    async (c) => {
      const result = await service.get(c.req.valid("param").name).interrupt();
      return result === undefined ? c.body(null, 204) : c.json(cellResultView(result), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/sessions/{name}/input",
      summary: "Type text, then press keys",
      request: { params: NameParams, ...body(InputBody) },
      responses: { 204: { description: "Written" }, 400: errors[400], 404: errors[404], 409: errors[409] },
    }),
    (c) => {
      const { text, keys } = c.req.valid("json");
      service.get(c.req.valid("param").name).input(text, keys);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions/{name}/screen",
      summary: "What a person would see now",
      request: { params: NameParams },
      responses: { 200: json(z.object({ screen: z.string(), cols: z.number(), rows: z.number() }), "The visible rows"), 404: errors[404] },
    }),
    (c) => {
      const sh = service.get(c.req.valid("param").name).session;
      return c.json({ screen: sh.screen(), cols: sh.cols, rows: sh.rows }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions/{name}/history",
      summary: "The last lines of the clean transcript",
      request: { params: NameParams, query: HistoryQuery },
      responses: { 200: json(z.object({ history: z.string() }), "`\\n`-joined lines"), 400: errors[400], 404: errors[404] },
    }),
    (c) => {
      const lines = c.req.valid("query").lines ?? 100;
      return c.json({ history: service.get(c.req.valid("param").name).session.history(lines) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions/{name}/events",
      summary: "Server-Sent Events: the session's SessionEvents (fired, done, notify, exit, error) and control changes",
      request: { params: NameParams },
      responses: {
        200: {
          description: "text/event-stream; each event's data is one JSON object",
          content: { "text/event-stream": { schema: z.string() } },
        },
        404: errors[404],
      },
    }),
    (c) => {
      const entry = service.get(c.req.valid("param").name);
      return streamSSE(c, async (stream) => {
        const abort = new AbortController();
        stream.onAbort(() => abort.abort());
        const onService = (event: { type: string; session: string }): void => {
          if (event.session !== entry.name || (event.type !== "control" && event.type !== "signal")) return;
          void stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
        };
        service.events.on("event", onService);
        try {
          await stream.writeSSE({ event: "hello", data: JSON.stringify({ session: entry.name, state: entry.session.state }) });
          for await (const event of entry.session.events({ signal: abort.signal })) {
            await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
          }
        } catch {
          /* the client went away or the session closed */
        } finally {
          service.events.off("event", onService);
        }
      });
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/sessions/{name}/signal",
      summary: "The program's hook reports the end of a turn (detectors.external())",
      request: { params: NameParams, ...body(SignalBody) },
      responses: { 200: json(z.object({ taken: z.boolean() }), "Whether the detector took it"), 400: errors[400], 404: errors[404] },
    }),
    (c) => {
      const { event, payload } = c.req.valid("json");
      const record = service.signal(c.req.valid("param").name, event, payload);
      return c.json({ taken: record.taken }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/sessions/{name}/ask",
      summary: "Write a prompt to a TUI agent, submit it, wait for its stop signal; the turn's clean text",
      request: { params: NameParams, ...body(AskBody) },
      responses: {
        200: json(z.object({ text: z.string(), result: CellResultSchema }), "The turn"),
        400: errors[400],
        404: errors[404],
        409: errors[409],
      },
    }),
    async (c) => {
      const { prompt, timeoutMs } = c.req.valid("json");
      const turn = await service.get(c.req.valid("param").name).ask(prompt, timeoutMs === undefined ? {} : { timeoutMs });
      return c.json({ text: turn.text, result: cellResultView(turn.result) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions/{name}/debug",
      summary: "State, raw and clean tails, last error, recent signals and cells",
      request: { params: NameParams },
      responses: { 200: json(z.record(z.string(), z.unknown()), "Debug view"), 404: errors[404] },
    }),
    (c) => c.json(debugView(service.get(c.req.valid("param").name)), 200),
  );

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  const document = () =>
    app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: "agent-tty", version: "1", description: "Persistent terminals for agents: sessions, cells, input, screen, events." },
      security: gate.token === undefined ? [] : [{ bearer: [] }],
    });
  app.get("/openapi.json", (c) => c.json(document()));

  app.get("/login", (c) => {
    if (!gate.redeem(c.req.query("code"), c.req.query("token"))) return c.html(LOGIN_NEEDED, 401);
    c.header("Set-Cookie", gate.cookie());
    c.header("Cache-Control", "no-store");
    return c.redirect("/", 303);
  });
  app.get("/", (c) => {
    c.header("Cache-Control", "no-store");
    return c.html(PAGE_HTML);
  });
  app.get("/assets/:file", async (c) => {
    const asset = await pageAsset(c.req.param("file"));
    if (asset === undefined) return c.json({ error: { code: "ERR_NOT_FOUND", message: "no such asset" } }, 404);
    return c.body(asset.body, 200, { "Content-Type": asset.type, "Cache-Control": "max-age=3600" });
  });
  return app;
}

const LOGIN_NEEDED = `<!doctype html><meta charset="utf-8"><title>agent-tty: log in</title>
<body style="font-family:sans-serif;background:#111;color:#ddd;padding:2em">
<h1>agent-tty</h1><p>This server needs a token. Open the one-time login URL that <code>agent-tty serve</code> printed
(or a new one from <code>server.loginUrl()</code>).</p></body>`;
