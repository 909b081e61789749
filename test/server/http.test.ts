import { request } from "node:http";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/index.js";
import { createServer } from "../../src/server/index.js";
import { trackManager } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";
import { client, FAKE_AGENT, startServer, terminalSocket, TOKEN } from "../helpers/server.js";

const BASH = { command: "bash", args: ["--norc", "--noprofile"] };

/** The index of the message that granted control (later messages are about giving it back). */
function granted(messages: { type: string; you?: boolean }[]): number {
  return messages.findIndex((m) => m.type === "control" && m.you === true);
}

describe("HTTP API", () => {
  it("opens a session, runs cells with exit codes, lists it with activity, and closes it (201/200/204/404)", async () => {
    const server = await startServer();
    const api = client(server);
    const created = await api.post("/api/sessions", { name: "work", ...BASH, label: "api tests", description: "the test's shell" });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      name: "work",
      label: "api tests",
      description: "the test's shell",
      state: "idle",
      activity: "idle",
      control: null,
    });

    const ok = await api.post("/api/sessions/work/run", { code: "echo hello" });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ status: "done", output: "hello", exitCode: 0, decidedBy: "shell-integration" });
    expect(typeof ok.json.startedAt).toBe("string");
    const failed = await api.post("/api/sessions/work/run", { code: "false" });
    expect(failed.json).toMatchObject({ status: "done", exitCode: 1 });

    const cells = await api.get("/api/sessions/work/cells");
    expect(cells.json.map((c: { code: string; exitCode: number }) => [c.code, c.exitCode])).toEqual([
      ["echo hello", 0],
      ["false", 1],
    ]);
    const polled = await api.get(`/api/sessions/work/cells/${ok.json.cellId}`);
    expect(polled.json).toMatchObject({ cellId: ok.json.cellId, status: "done", output: "hello" });
    expect((await api.get("/api/sessions/work/cells/000000000000")).status).toBe(404);

    const list = await api.get("/api/sessions");
    expect(list.json).toEqual([expect.objectContaining({ name: "work", label: "api tests", activity: "idle", activeCell: null })]);

    expect((await api.del("/api/sessions/work")).status).toBe(204);
    const gone = await api.get("/api/sessions/work/screen");
    expect(gone.status).toBe(404);
    expect(gone.json.error).toMatchObject({ code: "ERR_NO_SESSION", session: "work" });
    expect((await api.del("/api/sessions/work")).status).toBe(404);
  });

  it("answers 400 for invalid bodies and names, 409 for a duplicate, and 413 for a huge body", async () => {
    const server = await startServer();
    const api = client(server);
    expect((await api.post("/api/sessions", { name: "a", ...BASH })).status).toBe(201);
    const dup = await api.post("/api/sessions", { name: "a", ...BASH });
    expect(dup.status).toBe(409);
    expect(dup.json.error.code).toBe("ERR_SESSION_EXISTS");
    for (const bad of [{ name: "../x" }, { name: ".." }, { name: "a b" }, { bogus: 1 }, { cols: -3 }]) {
      const res = await api.post("/api/sessions", bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json.error.code).toBe("ERR_INVALID_ARGUMENT");
    }
    expect((await api.post("/api/sessions", "{not json")).status).toBe(400);
    expect((await api.post("/api/sessions/a/run", { code: "" })).status).toBe(400);
    expect((await api.post("/api/sessions/a/run", { code: "echo x", timeoutMs: "soon" })).status).toBe(400);
    expect((await api.get("/api/sessions/a/history?lines=-1")).status).toBe(400);
    expect((await api.post("/api/sessions/a/run", { code: "x".repeat(2 << 20) })).status).toBe(413);
    const spawnFails = await api.post("/api/sessions", { name: "nope", command: "/no/such/program" });
    expect(spawnFails.status).toBe(400);
    expect(spawnFails.json.error.code).toBe("ERR_SPAWN");
  });

  it("types text and keys, shows screen and history; a bad key name is 400 and types nothing", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "t", ...BASH });
    const bad = await api.post("/api/sessions/t/input", { text: "echo typed-nothing", keys: ["enter", "hyperspace"] });
    expect(bad.status).toBe(400);
    expect((await api.post("/api/sessions/t/input", { text: "echo typed-$((40+2))", keys: ["enter"] })).status).toBe(204);
    const screen = await waitFor(async () => {
      const res = await api.get("/api/sessions/t/screen");
      return res.json.screen.includes("typed-42") ? res.json : undefined;
    });
    expect(screen).toMatchObject({ cols: 200, rows: 50 });
    expect(screen.screen).not.toContain("typed-nothing");
    const history = await api.get("/api/sessions/t/history?lines=20");
    expect(history.json.history).toContain("typed-42");
  });

  it("a busy session answers 409 with activeCellId; interrupt answers the cell, then 204", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "b", ...BASH });
    const fired = await api.post("/api/sessions/b/fire", { code: "sleep 30" });
    expect(fired.status).toBe(202);
    const busy = await api.post("/api/sessions/b/run", { code: "echo never" });
    expect(busy.status).toBe(409);
    expect(busy.json.error).toMatchObject({ code: "ERR_SESSION_BUSY", activeCellId: fired.json.cellId });
    const listed = await api.get("/api/sessions/b");
    expect(listed.json.activeCell).toMatchObject({ id: fired.json.cellId, code: "sleep 30" });
    const stopped = await api.post("/api/sessions/b/interrupt");
    expect(stopped.status).toBe(200);
    expect(stopped.json).toMatchObject({ cellId: fired.json.cellId, status: "interrupted" });
    expect((await api.post("/api/sessions/b/interrupt")).status).toBe(204);
    expect((await api.post("/api/sessions/b/run", { code: "echo after" })).json.output).toBe("after");
  });

  it("run with untilInput comes back on a question; input answers it and the cell finishes", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "q", ...BASH });
    const asked = await api.post("/api/sessions/q/run", { code: 'read -p "Continue? [y/n] " x; echo "got $x"', untilInput: true });
    expect(asked.json).toMatchObject({ status: "awaiting_input", output: expect.stringContaining("Continue? [y/n]") });
    expect((await api.post("/api/sessions/q/input", { text: "y", keys: ["enter"] })).status).toBe(204);
    const done = await waitFor(async () => {
      const polled = await api.get(`/api/sessions/q/cells/${asked.json.cellId}`);
      return polled.json.status === "done" ? polled.json : undefined;
    });
    expect(done.output).toContain("got y");
  });

  it("a client that goes away during run interrupts its cell, and the session takes the next one", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "gone", ...BASH });
    const abort = new AbortController();
    const running = fetch(`${server.url}/api/sessions/gone/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ code: "sleep 30" }),
      signal: abort.signal,
    }).catch((error: unknown) => error);
    await waitFor(async () => (await api.get("/api/sessions/gone")).json.activity === "running", { message: "the cell to run" });
    abort.abort();
    expect(await running).toBeInstanceOf(Error);
    await waitFor(async () => (await api.get("/api/sessions/gone")).json.activity === "idle", {
      message: "the cell to be interrupted",
      timeoutMs: 10_000,
    });
    const after = await api.post("/api/sessions/gone/run", { code: "echo next-cell" });
    expect(after.json).toMatchObject({ status: "done", output: "next-cell" });
  });

  it("racing clients on one session: exactly one cell runs, the rest get 409, nothing is typed twice", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "race", ...BASH });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api.post("/api/sessions/race/run", { code: `sleep 0.5; echo RACE-$((${i}+1000))` })),
    );
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.json.error.code === "ERR_SESSION_BUSY")).toHaveLength(11);
    const history = (await api.get("/api/sessions/race/history?lines=100")).json.history as string;
    expect(history.match(/sleep 0.5; echo RACE-/g)).toHaveLength(1);
    expect(history.match(/^RACE-\d+$/gm)).toHaveLength(1);
  });

  it("streams the session's events over Server-Sent Events", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "ev", ...BASH });
    const abort = new AbortController();
    const res = await fetch(`${server.url}/api/sessions/ev/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    const until = async (pattern: RegExp) => {
      while (!pattern.test(seen)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended; saw ${seen}`);
        seen += value;
      }
    };
    await until(/event: hello/);
    const run = await api.post("/api/sessions/ev/run", { code: "echo sse" });
    await api.post("/api/sessions/ev/input", { text: "" });
    await until(/event: done\ndata: .*"status":"done"/);
    expect(seen).toMatch(new RegExp(`event: fired\\ndata: \\{[^\\n]*"cellId":"${run.json.cellId}"`));
    expect(seen).toMatch(new RegExp(`event: done\\ndata: \\{[^\\n]*"cellId":"${run.json.cellId}"`));
    abort.abort();
  });

  it("serves a generated OpenAPI 3.1 document that a validator accepts and that names every route", async () => {
    const server = await startServer();
    const doc = (await client(server).get("/openapi.json")).json;
    expect(doc.openapi).toBe("3.1.0");
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const routes = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(routes).toEqual(
      expect.arrayContaining([
        "GET /api/sessions",
        "POST /api/sessions",
        "DELETE /api/sessions/{name}",
        "POST /api/sessions/{name}/run",
        "POST /api/sessions/{name}/fire",
        "GET /api/sessions/{name}/cells/{id}",
        "POST /api/sessions/{name}/interrupt",
        "POST /api/sessions/{name}/input",
        "GET /api/sessions/{name}/screen",
        "GET /api/sessions/{name}/history",
        "GET /api/sessions/{name}/events",
        "POST /api/sessions/{name}/signal",
        "POST /api/sessions/{name}/ask",
        "GET /api/sessions/{name}/debug",
      ]),
    );
  });

  it("serves sessions of a manager the caller passes in", async () => {
    const manager = trackManager(new SessionManager());
    await manager.create("mine", BASH);
    const server = await startServer({ manager });
    const list = await client(server).get("/api/sessions");
    expect(list.json.map((s: { name: string }) => s.name)).toEqual(["mine"]);
    expect((await client(server).post("/api/sessions/mine/run", { code: "echo adopted" })).json.output).toBe("adopted");
  });
});

describe("security", () => {
  it("answers 401 without or with a wrong token on every route, the page included", async () => {
    const server = await startServer();
    await client(server).post("/api/sessions", { name: "s", ...BASH });
    for (const token of [null, "wrong-token-000000"]) {
      const api = client(server, token);
      for (const [method, path] of [
        ["GET", "/api/sessions"],
        ["POST", "/api/sessions"],
        ["DELETE", "/api/sessions/s"],
        ["POST", "/api/sessions/s/run"],
        ["POST", "/api/sessions/s/fire"],
        ["GET", "/api/sessions/s/cells/abc"],
        ["POST", "/api/sessions/s/interrupt"],
        ["POST", "/api/sessions/s/input"],
        ["GET", "/api/sessions/s/screen"],
        ["GET", "/api/sessions/s/history"],
        ["GET", "/api/sessions/s/events"],
        ["POST", "/api/sessions/s/signal"],
        ["GET", "/api/sessions/s/debug"],
        ["GET", "/openapi.json"],
        ["GET", "/assets/xterm.js"],
      ] as const) {
        const res = await api.call(
          method,
          path,
          method === "GET" || method === "DELETE" ? undefined : { code: "touch /tmp/should-not-run" },
        );
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.json.error.code).toBe("ERR_UNAUTHORIZED");
      }
      expect((await api.get("/")).status).toBe(401);
    }
    expect((await client(server).get("/api/sessions/s/history")).json.history).not.toContain("should-not-run");
  });

  it("a one-time login URL sets an HttpOnly cookie that works; the code does not work twice", async () => {
    const server = await startServer();
    const login = server.loginUrl();
    expect(login).not.toContain(TOKEN);
    const first = await fetch(login, { redirect: "manual" });
    expect(first.status).toBe(303);
    const cookie = first.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await fetch(`${server.url}/`, { headers: { cookie: cookie.split(";")[0]! } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/assets/xterm.js");
    expect((await fetch(login, { redirect: "manual" })).status).toBe(401);
  });

  it("refuses state-changing requests and WebSocket upgrades from a foreign Origin", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "o", ...BASH });
    const res = await api.post("/api/sessions/o/input", { text: "echo from-evil\r" }, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe("ERR_FORBIDDEN_ORIGIN");
    const sameOrigin = await api.post("/api/sessions/o/run", { code: "echo fine" }, { origin: server.url });
    expect(sameOrigin.json.output).toBe("fine");

    const foreign = terminalSocket(server, "o", { authorization: `Bearer ${TOKEN}`, origin: "https://evil.example" });
    await expect(foreign.opened).rejects.toMatchObject({ statusCode: 403 });
    const anonymous = terminalSocket(server, "o", {});
    await expect(anonymous.opened).rejects.toMatchObject({ statusCode: 401 });
    const good = terminalSocket(server, "o", { authorization: `Bearer ${TOKEN}`, origin: server.url });
    await good.opened;
    expect((await api.get("/api/sessions/o/history")).json.history).not.toContain("from-evil");
  });

  it("without a token, only loopback Host names are served (no DNS rebinding)", async () => {
    const server = await createServer({ port: 0 });
    try {
      expect((await fetch(`${server.url}/api/sessions`)).status).toBe(200);
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = request(`${server.url}/api/sessions`, { headers: { host: "attacker.example:80" } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on("error", reject);
        req.end();
      });
      expect(status).toBe(403);
    } finally {
      await server.close();
    }
  });

  it("a non-loopback host without a token refuses to start", async () => {
    await expect(createServer({ host: "0.0.0.0", port: 0 })).rejects.toMatchObject({
      code: "ERR_INVALID_ARGUMENT",
      message: expect.stringMatching(/without a token/),
    });
  });
});

describe("human control over the terminal WebSocket", () => {
  it("replays the screen, streams live; while a person holds it agent cells get 409 ERR_HUMAN_CONTROL and their keys reach the transcript", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "h", ...BASH });
    await api.post("/api/sessions/h/run", { code: "echo before-watch" });
    const person = terminalSocket(server, "h");
    const watcher = terminalSocket(server, "h");
    await Promise.all([person.opened, watcher.opened]);
    await waitFor(() => person.text().includes("before-watch"), { message: "replayed screen" });

    person.send({ type: "take" });
    await waitFor(() => person.messages.some((m) => m.type === "control" && m.you === true), { message: "control granted" });
    await waitFor(() => watcher.messages.some((m) => m.type === "control" && m.control?.via === "web" && m.you === false), {
      message: "watcher told",
    });
    const refused = await api.post("/api/sessions/h/run", { code: "echo agent" });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("ERR_HUMAN_CONTROL");
    expect((await api.post("/api/sessions/h/input", { text: "x" })).status).toBe(409);
    expect((await api.get("/api/sessions/h")).json.control).toMatchObject({ via: "web" });

    watcher.send({ type: "input", data: "echo watcher-typed\r" });
    person.send({ type: "input", data: "echo person-$((6*7))\r" });
    await waitFor(() => watcher.text().includes("person-42"), { message: "the watcher sees the person's command run" });
    const history = (await api.get("/api/sessions/h/history?lines=20")).json.history as string;
    expect(history).toContain("echo person-$((6*7))");
    expect(history).toContain("person-42");
    expect(history).not.toContain("watcher-typed");

    person.send({ type: "give" });
    await waitFor(() => person.messages.slice(granted(person.messages)).some((m) => m.type === "control" && m.control === null), {
      message: "given back",
    });
    const after = await api.post("/api/sessions/h/run", { code: "echo agent-again" });
    expect(after.json).toMatchObject({ status: "done", output: "agent-again" });
  });

  it("a watcher that starts late gets the screen with its colours, not only its text", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "c", ...BASH });
    await api.post("/api/sessions/c/run", { code: "printf '\\033[31mred-text\\033[0m plain\\n'" });
    const watcher = terminalSocket(server, "c");
    await watcher.opened;
    await waitFor(() => watcher.messages.some((m) => m.type === "hello"), { message: "the hello message" });
    const hello = watcher.messages.find((m) => m.type === "hello") as { data: string };
    expect(hello.data).toMatch(/\x1b\[31mred-text\x1b\[0m plain/);
  });

  it("a watcher that stops reading has its backlog dropped and gets the screen again: memory stays bounded", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "flood", ...BASH });
    const watcher = terminalSocket(server, "flood");
    await watcher.opened;
    await waitFor(() => watcher.messages.some((m) => m.type === "hello"));
    watcher.ws.pause();
    const produced = 24_000_000;
    const run = await api.post("/api/sessions/flood/run", {
      code: `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${produced}; echo flood-end`,
      timeoutMs: 60_000,
    });
    expect(run.json.status).toBe("done");
    await api.post("/api/sessions/flood/run", { code: "echo after-flood" });
    watcher.ws.resume();
    await waitFor(() => watcher.messages.some((m) => m.type === "reset") && watcher.text().includes("after-flood"), {
      timeoutMs: 20_000,
      message: "a reset with the screen, then live data",
    });
    const received = watcher.messages.filter((m) => m.type === "data").reduce((sum, m) => sum + m.data.length, 0);
    expect(received).toBeLessThan(produced);
  }, 90_000);

  it("a person who disconnects gives the terminal back", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "d", ...BASH });
    const person = terminalSocket(server, "d");
    await person.opened;
    person.send({ type: "take" });
    await waitFor(async () => (await api.get("/api/sessions/d")).json.control !== null);
    person.ws.close();
    await waitFor(async () => (await api.get("/api/sessions/d")).json.control === null, { message: "released on close" });
    expect((await api.post("/api/sessions/d/run", { code: "echo free" })).json.output).toBe("free");
  });
});

describe("TUI agents driven by their hooks", () => {
  it("ask() returns the turn when the agent's hook POSTs /signal; a turn that never signals needs recovery (409) until interrupted", async () => {
    const server = await startServer();
    const api = client(server);
    const created = await api.post("/api/sessions", {
      name: "agent",
      command: process.execPath,
      args: [FAKE_AGENT],
      detector: "external",
      cols: 100,
      rows: 20,
    });
    expect(created.status).toBe(201);
    const turn = await api.post("/api/sessions/agent/ask", { prompt: "hello agent", timeoutMs: 10_000 });
    expect(turn.status).toBe(200);
    expect(turn.json.result).toMatchObject({ status: "done", decidedBy: "external" });
    expect(turn.json.text).toContain("answer: HELLO AGENT");
    const screen = (await api.get("/api/sessions/agent/screen")).json.screen as string;
    expect(screen).toContain("session=agent");

    const stuck = await api.post("/api/sessions/agent/ask", { prompt: "never mind", timeoutMs: 1_000 });
    expect(stuck.json.result.status).toBe("timeout");
    const blocked = await api.post("/api/sessions/agent/ask", { prompt: "again" });
    expect(blocked.status).toBe(409);
    expect(blocked.json.error).toMatchObject({ code: "ERR_NEEDS_RECOVERY", cellId: stuck.json.result.cellId });
    const debug = (await api.get("/api/sessions/agent/debug")).json;
    expect(debug).toMatchObject({ needsRecovery: true, needsRecoveryCell: stuck.json.result.cellId, detector: "external" });
    expect(debug.lastError).toMatch(/timed out/);
    expect(debug.signals).toEqual([expect.objectContaining({ event: "stop", taken: true, payload: { turns: 1 } })]);
    expect(debug.rawTail).toContain("\x1b[");
    expect(debug.cleanTail).toContain("answer:");

    expect((await api.post("/api/sessions/agent/interrupt")).status).toBe(200);
    const recovered = await api.post("/api/sessions/agent/ask", { prompt: "third", timeoutMs: 10_000 });
    expect(recovered.json.text, JSON.stringify(recovered.json)).toContain("answer: THIRD");
    expect((await api.post("/api/sessions/agent/signal", { event: "finish" })).status).toBe(400);
  });

  it("the program's AGENT_TTY_SIGNAL_TOKEN opens only its own session's signal route", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "one", ...BASH });
    await api.post("/api/sessions", { name: "two", ...BASH });
    const env = await api.post("/api/sessions/one/run", {
      code: 'echo "$AGENT_TTY_SESSION $AGENT_TTY_SIGNAL_URL $AGENT_TTY_SIGNAL_TOKEN"',
    });
    const [session, url, signalToken] = env.json.output.split(" ");
    expect(session).toBe("one");
    expect(url).toBe(`${server.url}/api/sessions/one/signal`);
    expect(signalToken).not.toContain(TOKEN);
    const own = client(server, signalToken);
    expect((await own.post("/api/sessions/one/signal", { event: "stop" })).json).toEqual({ taken: false });
    expect((await own.post("/api/sessions/two/signal", { event: "stop" })).status).toBe(401);
    expect((await own.get("/api/sessions")).status).toBe(401);
    expect((await own.post("/api/sessions/one/run", { code: "echo no" })).status).toBe(401);
  });

  it("readyOn: 'signal' — the session is ready when the agent's hook first calls back while it starts", async () => {
    const server = await startServer();
    const api = client(server);
    const started = performance.now();
    const created = await api.post("/api/sessions", {
      name: "ready",
      command: process.execPath,
      args: [FAKE_AGENT, "--signal-ready"],
      detector: "external",
      readyOn: "signal",
    });
    expect(created.status).toBe(201);
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    const turn = await api.post("/api/sessions/ready/ask", { prompt: "are you there", timeoutMs: 10_000 });
    expect(turn.json.text).toContain("answer: ARE YOU THERE");
    expect((await api.post("/api/sessions/nobody/signal", {})).status).toBe(404);
  });
});

describe("one session, many surfaces", () => {
  it("while a person holds a session on the page, the tool set's terminal_run on the same manager is refused with ERR_HUMAN_CONTROL", async () => {
    const { createTerminalToolkit } = await import("../../src/tools/index.js");
    const manager = trackManager(new SessionManager());
    const server = await startServer({ manager });
    const kit = createTerminalToolkit({ manager });
    const api = client(server);
    await api.post("/api/sessions", { name: "both", ...BASH });
    const person = terminalSocket(server, "both");
    await person.opened;
    person.send({ type: "take" });
    await waitFor(() => person.messages.some((m) => m.type === "control" && m.you === true));
    const refused = await kit.execute("terminal_run", { session: "both", code: "echo from-tools" });
    expect(JSON.stringify(refused)).toContain("ERR_HUMAN_CONTROL");
    person.send({ type: "give" });
    await waitFor(() => person.messages.slice(granted(person.messages)).some((m) => m.type === "control" && m.control === null), {
      message: "given back",
    });
    const ran = await kit.execute("terminal_run", { session: "both", code: "echo from-tools" });
    expect(JSON.stringify(ran), JSON.stringify(ran)).toContain("from-tools");
    expect((await api.get("/api/sessions/both/history")).json.history.match(/^from-tools$/gm)).toHaveLength(1);
  });
});
