// Deterministic instructions per shell-integration cell on the Node side: callgrind counts node
// running S sessions x C cells in parallel (the bench's `parallel` workload) against S sessions x 0
// cells, with the PTY replaced by a stub that answers as bash with agent-tty's marks does (one chunk
// per cell, in a later turn). V8 single-threaded, a fixed hash seed, a predictable GC schedule, the periodic checks' timers
// parked (under valgrind they would tick with wall time) and a private TMPDIR (the start-up sweep
// walks it): the same build gives the same count within ~0.5k instructions a cell.
//
//   npm run build && node bench/cell-instructions.mjs [--sessions=20] [--cells=20] [--dist=dist]
//
// What it prints: (instructions(S x C) - instructions(S x 0)) / (S x C), then the same without the
// garbage collector's share (compare builds by that one: where a scavenge falls is noise here). 20 x 20 is the bench's
// cold regime (nothing is optimized by TurboFan within it); --sessions=1 --cells=210 against
// --base-cells=10 gives cells 11-210 of one session. Needs valgrind. With --run-only it runs the
// workload once, without valgrind (add --cpu for the driver CPU per cell).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;

/** The stub that replaces dist/pty/spawn.js in the copy measured. */
const STUB = `import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
export function spawnPty(plan, size, handlers) {
  // The secret is in the start-up file that PROMPT_COMMAND sources (bash --norc).
  const file = /\\.\\s+'?([^' ]+)'?/.exec(plan.env.PROMPT_COMMAND ?? "");
  const secret = file === null ? undefined : /6973;([A-Za-z0-9_-]{16});/.exec(readFileSync(file[1], "utf8"))?.[1];
  // Without it the cells would never end: stop at once (the start-up file changed: update the stub).
  if (secret === undefined) throw new Error("the stub found no mark secret in bash's start-up file");
  const mark = (body) => "\\x1b]6973;" + secret + ";" + body + "\\x07";
  // A real process stands behind the pid (the session signals it on close).
  const child = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
  child.unref();
  const decoder = new StringDecoder("utf8");
  const deliver = (text) => { const decoded = decoder.write(Buffer.from(text)); if (decoded !== "") handlers.onData(decoded); };
  let exited = false;
  setImmediate(() => deliver("\\x1b[?2004h" + mark("W;" + plan.cwd) + mark("D;0") + "$ "));
  return {
    pid: child.pid,
    ptsName: undefined,
    write(data) {
      if (exited) return;
      handlers.onInput?.(data);
      let code = data.startsWith("\\x18\\x0b") ? data.slice(2) : data;
      if (!code.endsWith("\\r")) return;
      code = code.slice(0, -1);
      const out = code.startsWith("echo ") ? code.slice(5) : "";
      // As bash answers \`echo hi\` (PS1='$ '): the echo, the start mark, the output, the status mark that opens the prompt.
      setImmediate(() => deliver(code + "\\r\\n\\x1b[?2004l\\r" + mark("C") + out + "\\r\\n\\x1b[?2004h" + mark("D;0") + "$ "));
    },
    resize() {},
    kill() { this.destroy(); },
    hasUnreadOutput() { return false; },
    releaseSlave() {},
    destroy() {
      if (exited) return;
      exited = true;
      try { process.kill(-child.pid, "SIGKILL"); } catch {}
      setImmediate(() => handlers.onExit({ exitCode: 0, signal: undefined }));
    },
  };
}
`;

/** The workload, run inside node (under valgrind or not). */
const WORKLOAD = `import { mkdirSync } from "node:fs";
const [dir, S, C, home] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), process.argv[5]];
if (process.env.PARK_INTERVALS) { const si = globalThis.setInterval; globalThis.setInterval = (fn, ms, ...a) => si(fn, 1e9, ...a); }
const { Session, detectors } = await import(dir + "/dist/index.js");
mkdirSync(home, { recursive: true });
const sessions = await Promise.all(Array.from({ length: S }, () => Session.spawn({ command: "bash", cwd: home, env: { HOME: home, PS1: "$ " }, args: ["--norc", "--noprofile"], detector: detectors.shellIntegration(), timeoutMs: 600_000 })));
let bad = null;
const cpu0 = process.cpuUsage();
await Promise.all(sessions.map(async (h, s) => { for (let i = 0; i < C; i++) { const want = "s" + s + "c" + i; const got = (await h.run("echo " + want)).output; if (got !== want && !bad) bad = "session " + s + " cell " + i + ": " + JSON.stringify(got); } }));
const cpu = process.cpuUsage(cpu0);
if (process.env.REPORT_CPU && S * C > 0) console.log("driver CPU per cell: " + ((cpu.user + cpu.system) / (S * C)).toFixed(1) + " us");
for (const h of sessions) { try { process.kill(-h.pid, "SIGKILL"); } catch {} }
if (bad) { console.error("wrong output: " + bad); process.exit(1); }
process.exit(0);
`;

const sessions = Number(opt("sessions", 20));
const cells = Number(opt("cells", 20));
const baseCells = Number(opt("base-cells", 0));
const dist = resolve(opt("dist", join(here, "..", "dist")));
const root = mkdtempSync(join(tmpdir(), "agent-tty-cellcost-"));
try {
  // A copy of the build with the stub in place of the PTY (node_modules resolved from the project).
  const lib = join(root, "lib");
  cpSync(dist, join(lib, "dist"), { recursive: true });
  writeFileSync(join(lib, "package.json"), readFileSync(join(dist, "..", "package.json")));
  symlinkSync(resolve(dist, "..", "node_modules"), join(lib, "node_modules"));
  writeFileSync(join(lib, "dist", "pty", "spawn.js"), STUB);
  const workload = join(root, "workload.mjs");
  writeFileSync(workload, WORKLOAD);
  const run = (cellCount, valgrind) => {
    const tmp = join(root, `tmp-${cellCount}`);
    mkdirSync(tmp);
    const node = [
      "--single-threaded",
      "--hash-seed=1",
      "--random-seed=1",
      // GC on a schedule of its own, not one from timings: without it the count moves by a few k a cell with the load.
      "--predictable-gc-schedule",
      workload,
      lib,
      String(sessions),
      String(cellCount),
      join(root, "home"),
    ];
    const env = { ...process.env, TMPDIR: tmp, PARK_INTERVALS: "1", ...(argv.includes("--cpu") ? { REPORT_CPU: "1" } : {}) };
    const out = join(root, `callgrind.${cellCount}`);
    const [command, args] = valgrind
      ? ["valgrind", ["--tool=callgrind", `--callgrind-out-file=${out}`, process.execPath, ...node]]
      : [process.execPath, node];
    const result = spawnSync(command, args, { env, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${command} exited ${result.status}: ${result.stderr.slice(-2000)}`);
    if (!valgrind) return result.stdout;
    const collected = /Collected : (\d+)/.exec(result.stderr);
    if (collected === null) throw new Error(`no instruction count in valgrind's output: ${result.stderr.slice(-2000)}`);
    return Number(collected[1]);
  };
  // The garbage collector's share of a run (Heap::CollectGarbage, inclusive): where a scavenge falls moves a
  // run's count by several million (up to ~19k a cell in 20 x 20) with a change of a few allocations or the
  // machine's load, so a comparison of two builds reads the count without it too. 0 without callgrind_annotate.
  const gcOf = (cellCount) => {
    const annotated = spawnSync("callgrind_annotate", ["--inclusive=yes", "--threshold=100", join(root, `callgrind.${cellCount}`)], {
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    const line = (annotated.stdout ?? "").split("\n").find((text) => text.includes("Heap::CollectGarbage("));
    return line === undefined ? 0 : Number(line.trim().split(" ")[0].replaceAll(",", ""));
  };
  if (argv.includes("--run-only")) {
    process.stdout.write(run(cells, false));
  } else {
    const withCells = run(cells, true);
    const without = run(baseCells, true);
    const perCell = (withCells - without) / (sessions * (cells - baseCells));
    console.log(
      `${sessions} sessions x cells ${baseCells + 1}-${cells}: ${(perCell / 1000).toFixed(1)}k instructions per cell ` +
        `(${withCells} - ${without}, callgrind, PTY stubbed)`,
    );
    const [gcWith, gcWithout] = [gcOf(cells), gcOf(baseCells)];
    const perCellNoGc = (withCells - gcWith - (without - gcWithout)) / (sessions * (cells - baseCells));
    console.log(`  without the garbage collector's share: ${(perCellNoGc / 1000).toFixed(1)}k per cell (GC ${gcWith} and ${gcWithout})`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
