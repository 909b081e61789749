/**
 * `agent-tty serve [--host 127.0.0.1] [--port 7681] [--token T] [--no-token]`:
 * the HTTP server and live web page in the foreground until Ctrl-C. A
 * token is generated (and printed once, with a one-time login URL) unless
 * one is given, or `--no-token` is passed on a loopback host.
 */
import { parseArgs } from "node:util";

const USAGE = `Usage: agent-tty serve [--host 127.0.0.1] [--port 7681] [--token T | --no-token]

  --host H      interface to listen on (default 127.0.0.1); any other host needs a token
  --port N      port (default 7681; 0 picks a free one)
  --token T     the token every request needs (Authorization: Bearer T); default: a new random one
  --no-token    no token (loopback hosts only): anyone on this machine can use the server
  Also AGENT_TTY_TOKEN=T.
`;

/** Runs the server; resolves with the exit status once stopped by SIGINT/SIGTERM. */
export async function serveCommand(argv: string[]): Promise<number> {
  let values: { host?: string; port?: string; token?: string; "no-token"?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        token: { type: "string" },
        "no-token": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`agent-tty serve: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  let server: typeof import("../server/index.js");
  try {
    server = await import("../server/index.js");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") {
      process.stderr.write(
        `agent-tty serve needs its optional packages: npm install hono @hono/node-server @hono/zod-openapi zod ws @xterm/xterm @xterm/addon-fit\n(${(error as Error).message})\n`,
      );
      return 1;
    }
    throw error;
  }
  const host = values.host ?? "127.0.0.1";
  const port = values.port === undefined ? 7681 : Number(values.port);
  if (values["no-token"] === true && !server.isLoopbackHost(host)) {
    process.stderr.write(`agent-tty serve: --no-token is only allowed on a loopback host, not '${host}'\n`);
    return 2;
  }
  const given = values.token ?? (process.env["AGENT_TTY_TOKEN"] || undefined);
  const token = values["no-token"] === true ? undefined : (given ?? server.generateToken());
  let running;
  try {
    running = await server.createServer({ host, port, ...(token === undefined ? {} : { token }) });
  } catch (error) {
    process.stderr.write(`agent-tty serve: ${(error as Error).message}\n`);
    return 1;
  }
  const lines = [`agent-tty serving on ${running.url}`];
  if (token !== undefined) {
    if (given === undefined) lines.push(`token: ${token}   (API: Authorization: Bearer <token>)`);
    lines.push(`open in a browser (one-time login): ${running.loginUrl()}`);
  } else lines.push(`open in a browser: ${running.url}/`);
  lines.push(`OpenAPI: ${running.url}/openapi.json   stop: Ctrl-C`);
  process.stdout.write(`${lines.join("\n")}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await running.close();
  return 0;
}
