import { fileURLToPath } from "node:url";
import { afterAll, afterEach } from "vitest";
import WebSocket from "ws";
import { createServer, type AgentTtyServer, type ServerOptions } from "../../src/server/index.js";

export const FAKE_AGENT = fileURLToPath(new URL("../server/fixtures/fake-agent.mjs", import.meta.url));
export const TOKEN = "test-token-0123456789";

const servers = new Set<AgentTtyServer>();
const sockets = new Set<WebSocket>();

/** A real server on a free loopback port; its sessions are closed after each test, the server after the file. */
export async function startServer(options: ServerOptions = {}): Promise<AgentTtyServer> {
  const server = await createServer({ port: 0, token: TOKEN, ...options });
  servers.add(server);
  return server;
}

afterEach(async () => {
  for (const ws of sockets) ws.terminate();
  sockets.clear();
  await Promise.all([...servers].map((s) => s.manager.closeAll()));
});
afterAll(async () => {
  await Promise.all([...servers].map((s) => s.close()));
  servers.clear();
});

/** A small HTTP client with the token (unless `token: null`). */
export function client(server: AgentTtyServer, token: string | null = TOKEN) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json: json as any, text, headers: res.headers };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call("GET", path, undefined, headers),
    post: (path: string, body: unknown = {}, headers?: Record<string, string>) => call("POST", path, body, headers),
    del: (path: string) => call("DELETE", path),
    call,
  };
}

/** A WebSocket on a session's terminal; collects its messages. Closed after the test. */
export function terminalSocket(
  server: AgentTtyServer,
  name: string,
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
) {
  const url = `${server.url.replace(/^http/, "ws")}/api/sessions/${name}/terminal`;
  const ws = new WebSocket(url, { headers });
  sockets.add(ws);
  const messages: any[] = [];
  let text = "";
  ws.on("message", (data) => {
    const message = JSON.parse(String(data));
    messages.push(message);
    if (message.type === "data" || message.type === "hello" || message.type === "reset") text += message.data;
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) =>
      reject(Object.assign(new Error(`refused with ${res.statusCode}`), { statusCode: res.statusCode })),
    );
  });
  return {
    ws,
    opened,
    messages,
    text: () => text,
    send: (message: object) => ws.send(JSON.stringify(message)),
  };
}
