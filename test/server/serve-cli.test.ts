import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/wait-for.js";

const BIN = fileURLToPath(new URL("../../dist/cli/agent-tty.js", import.meta.url));
const children = new Set<ReturnType<typeof spawn>>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  children.clear();
});

function serve(args: string[]) {
  const child = spawn(process.execPath, [BIN, "serve", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, AGENT_TTY_TOKEN: "" },
  });
  children.add(child);
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, out: () => out, exited };
}

describe("agent-tty serve", () => {
  it("generates and prints a token and a one-time login URL; Ctrl-C stops it", async () => {
    const s = serve(["--port", "0"]);
    const printed = await waitFor(() => /token: (\S+)[\s\S]*login\): (\S+)/.exec(s.out()), { timeoutMs: 10_000, message: s.out() });
    const [, token, login] = printed;
    const url = new URL(login!).origin;
    expect((await fetch(`${url}/api/sessions`)).status).toBe(401);
    expect((await fetch(`${url}/api/sessions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetch(login!, { redirect: "manual" })).status).toBe(303);
    s.child.kill("SIGINT");
    expect(await s.exited).toBe(0);
  });

  it("--no-token is refused on a non-loopback host", async () => {
    const s = serve(["--host", "0.0.0.0", "--port", "0", "--no-token"]);
    expect(await s.exited).toBe(2);
    expect(s.out()).toMatch(/--no-token is only allowed on a loopback host/);
  });
});
