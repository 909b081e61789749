// The CLI as agents use it: every `k` call a whole new process. Measured
// against `node -e 0` (Node's own start-up, the floor for any Node CLI),
// interleaved in rounds.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, percentile } from "./stats.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const K = join(root, "dist", "cli", "k.js");
const DAEMON = join(root, "dist", "cli", "agent-tty.js");

function timed(file, args, env) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("close", (code) => resolve({ ms: performance.now() - t0, code, out, err }));
    p.on("error", (e) => resolve({ ms: NaN, code: -1, out, err: String(e) }));
  });
}

const stats = (ms) => ({ ms, p50: median(ms), p95: percentile(ms, 95), n: ms.length });

export async function runCli({ rounds, perRound }) {
  if (!existsSync(K)) return { skipped: "CLI skipped: dist/cli/k.js does not exist yet" };
  // A private HOME/XDG_RUNTIME_DIR so the bench gets its own daemon and leaves
  // any other daemon alone.
  const home = mkdtempSync(join(tmpdir(), "agent-tty-bench-cli-"));
  const env = { ...process.env, HOME: home, XDG_RUNTIME_DIR: home, TMPDIR: home, AGENT_TTY_HOME: join(home, "d") };
  delete env.K_SESSION;
  const node = process.execPath;
  const k = (...a) => timed(node, [K, ...a], env);
  const res = { new: [], run: [], node: [] };
  const problems = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const s = `bench${round}`;
      const made = await k("new", s, "bash");
      if (!/^OK /.test(made.out)) problems.push(`k new: ${made.code} ${made.out}${made.err}`.trim());
      else if (round > 0) res.new.push(made.ms); // round 0 also starts the daemon
      for (let i = 0; i < perRound; i++) {
        const base = await timed(node, ["-e", "0"], env);
        res.node.push(base.ms);
        const r = await k("run", "-j", s, "echo hi");
        res.run.push(r.ms);
        let j;
        try {
          j = JSON.parse(r.out);
        } catch {}
        if (j?.status !== "done" || j.output !== "hi") problems.push(`k run -j: ${r.code} ${r.out}${r.err}`.trim());
      }
      await k("kill", s);
    }
  } finally {
    if (existsSync(DAEMON)) await timed(node, [DAEMON, "daemon", "stop"], env);
    rmSync(home, { recursive: true, force: true });
  }
  const run = { ...stats(res.run), ok: problems.length === 0 };
  if (problems.length) run.details = problems.slice(0, 3);
  return { new: stats(res.new), run, node: stats(res.node) };
}
