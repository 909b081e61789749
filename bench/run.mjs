// npm run bench [-- --quick] [--only=echo,spawn,cli] [--contenders=floor,si] [--rounds=N] [--profile]
// pexpect (python3-pexpect) is measured beside the others where python3 can import it.
// Measures every contender side by side in one run, interleaved in rounds
// (the machine is shared and noisy: the ratios to the floor measured in the
// same run are what count; a figure measured once per round, such as the
// 15 MB cell or 20x20, is the median of its rounds), prints a table and
// writes bench/results/latest.json.
// Exit 0 whatever the figures; non-zero only when an output check failed or a
// workload crashed.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "./cli.mjs";
import { loadLib } from "./contenders.mjs";
import { median, percentile, rotate } from "./stats.mjs";
import { printReport } from "./report.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const list = (name) =>
  argv
    .find((a) => a.startsWith(`--${name}=`))
    ?.split("=")[1]
    .split(",");
const quick = flag("quick");
const profileDir = flag("profile") ? join(here, "results", "prof") : null;

const LIB = ["si", "prompt", "repeat"];
const FLOORS = ["floor", "floor2"];
/** Concurrent sessions of the scale curve, and cells each runs. */
const SCALE = quick ? { sessions: [1, 5, 20, 50], cells: 5 } : { sessions: [1, 2, 5, 10, 20, 50, 100], cells: 10 };
const plan = {
  spawn: { rounds: quick ? 2 : 5, params: { n: quick ? 3 : 4 }, who: [...FLOORS, "hooks", ...LIB, "pexpect"] },
  // The host's speed drifts over windows of 50-200 ms, alike for every contender: a round of 60
  // cells samples one window, so echo and 20 x 20 take more rounds than the rest (bench/README.md).
  echo: { rounds: quick ? 2 : 15, params: { n: quick ? 40 : 60, warm: 10 }, who: [...FLOORS, "hooks", ...LIB, "pexpect"] },
  bigcell: { rounds: quick ? 1 : 5, params: { lines: 2_000_000 }, who: ["raw", ...FLOORS, ...LIB, "pexpect"] },
  flood: { rounds: 1, params: { bytes: quick ? 200e6 : 1e9 }, who: quick ? ["floor", "si"] : ["floor", ...LIB] },
  idle: { rounds: quick ? 1 : 2, params: { n: 50, idleMs: quick ? 1000 : 2000 }, who: [...FLOORS, ...LIB, "pexpect"] },
  parallel: {
    rounds: quick ? 1 : 9,
    params: { sessions: 20, cells: 20 },
    who: quick ? [...FLOORS, ...LIB, "pexpect"] : [...FLOORS, "hooks", ...LIB, "pexpect"],
  },
  ...Object.fromEntries(
    SCALE.sessions.map((n) => [
      `scale${n}`,
      { rounds: 1, workload: "scale", params: { sessions: n, cells: SCALE.cells }, who: [...FLOORS, "si", "prompt", "pexpect"] },
    ]),
  ),
};

/** Whether python3 here can import pexpect (its version), or why not. */
function probePexpect() {
  try {
    return {
      version: execFileSync("python3", ["-c", "import pexpect; print(pexpect.__version__)"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim(),
    };
  } catch {
    return { error: "pexpect not measured: python3 cannot import it (apt-get install python3-pexpect)" };
  }
}

const notes = [];
const lib = await loadLib();
let contenders = ["raw", ...FLOORS, "hooks", ...LIB, "pexpect"];
if (lib.error) {
  notes.push(`agent-tty skipped: ${lib.error}; run \`npm run build\` first`);
  contenders = ["raw", ...FLOORS, "pexpect"];
}
const pexpect = probePexpect();
if (pexpect.error) {
  notes.push(pexpect.error);
  contenders = contenders.filter((c) => c !== "pexpect");
}
const onlyC = list("contenders");
if (onlyC) contenders = contenders.filter((c) => onlyC.includes(c) || c === "floor");
const onlyW = list("only");
const roundsOverride = Number(list("rounds")?.[0]) || 0;
if (roundsOverride) for (const spec of Object.values(plan)) spec.rounds = roundsOverride;
const progress = (s) => process.stderr.isTTY && process.stderr.write(`\r${s}`.padEnd(60));

function worker(contender, workload, params) {
  const job = JSON.stringify({ contender, workload, params });
  let file = process.execPath;
  let args = ["--expose-gc"];
  if (contender === "pexpect") {
    file = "python3";
    args = [join(here, "pexpect_worker.py"), job];
  } else {
    if (profileDir)
      args.push("--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${workload}-${contender}-${Date.now()}.cpuprofile`);
    args.push(join(here, "worker.mjs"), job);
  }
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 << 20, timeout: 30 * 60_000 }, (err, stdout, stderr) => {
      const last = stdout.trim().split("\n").pop();
      try {
        resolve(JSON.parse(last));
      } catch {
        resolve({ error: `worker failed (${err?.message ?? "no output"}): ${stderr.slice(-2000)}` });
      }
    });
  });
}

/** Samples (arrays) concatenate across rounds; scalars become per-round lists. */
function merge(into, r) {
  for (const [k, v] of Object.entries(r)) {
    if (Array.isArray(v)) into[k] = [...(into[k] ?? []), ...v];
    else if (typeof v === "number") (into[`${k}Rounds`] ??= []).push(v);
    else if (k === "ok") into.ok = (into.ok ?? true) && v;
    else if (k === "error" && v.includes("SKIP: ")) into.skipped = v.split("SKIP: ")[1].split("\n")[0];
    else if (k === "detail" || k === "error") (into[`${k}s`] ??= []).push(v);
  }
  return into;
}

function summarize(m) {
  const out = { ...m };
  if (m.ms) Object.assign(out, { p50: median(m.ms), p95: percentile(m.ms, 95), n: m.ms.length });
  for (const [k, v] of Object.entries(m)) if (k.endsWith("Rounds")) out[k.slice(0, -6)] = median(v);
  return out;
}

if (profileDir) mkdirSync(profileDir, { recursive: true });
const started = new Date();
const load0 = loadavg()[0];
const results = {};
const seconds = {};
for (const [workload, spec] of Object.entries(plan)) {
  const t0 = Date.now();
  if (onlyW && !onlyW.includes(workload) && !onlyW.includes(spec.workload)) continue;
  const who = spec.who.filter((c) => contenders.includes(c));
  const merged = Object.fromEntries(who.map((c) => [c, {}]));
  for (let round = 0; round < spec.rounds; round++) {
    for (const c of rotate(who, round)) {
      progress(`${workload} round ${round + 1}/${spec.rounds}: ${c}`);
      merge(merged[c], await worker(c, spec.workload ?? workload, spec.params));
    }
  }
  results[workload] = Object.fromEntries(Object.entries(merged).map(([c, m]) => [c, summarize(m)]));
  for (const [c, m] of Object.entries(merged)) if (m.skipped) notes.push(`${workload}/${c} skipped: ${m.skipped}`);
  seconds[workload] = (Date.now() - t0) / 1000;
}
if (!onlyW || onlyW.includes("cli")) {
  progress("cli");
  const t0 = Date.now();
  const cli = await runCli({ rounds: quick ? 3 : 5, perRound: quick ? 4 : 10 });
  seconds.cli = (Date.now() - t0) / 1000;
  if (cli.skipped) notes.push(cli.skipped);
  else results.cli = cli;
}
progress("");
if (process.stderr.isTTY) process.stderr.write("\r");

const report = {
  date: started.toISOString(),
  quick,
  node: process.version,
  pexpect: pexpect.version ?? null,
  cpus: cpus().length,
  loadavg: { start: load0, end: loadavg()[0] },
  wallSeconds: (Date.now() - started.getTime()) / 1000,
  seconds,
  plan,
  results,
  notes,
};
const { targets, failures } = printReport(report);
report.targets = targets;
report.failures = failures;
mkdirSync(join(here, "results"), { recursive: true });
const json = JSON.stringify(report, null, 2) + "\n";
const file = join(here, "results", "latest.json");
writeFileSync(file, json);
writeFileSync(join(here, "results", quick ? "latest-quick.json" : "latest-full.json"), json);
console.log(`\nJSON: ${file}${profileDir ? `\nCPU profiles: ${profileDir} (node bench/prof-summary.mjs ${profileDir})` : ""}`);
process.exitCode = failures.length ? 1 : 0;
