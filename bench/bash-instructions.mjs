// Deterministic cost of shell integration on bash's side: callgrind counts bash itself (not node)
// driven through node-pty by a bare loop (as the bench's floor is), with agent-tty's start-up file
// and cell encoding (`--contender=hooks`, the default) or the floor's (`--contender=floor`), for
// 0 cells and for N cells; a fresh HOME each run (bash reads and writes its history there). The
// detector is told each write and fed bash's marks, as a session does: the clear key goes before a
// cell only where the library would send it (the first cell here).
//
//   npm run build && node bench/bash-instructions.mjs [--contender=hooks|floor] [--cells=20]
//     [--ps1='$ '] [--cell='echo hi'] [--strace] [--dist=dist]
//
// What it prints: bash's instructions to its first prompt (and `exit`), and per cell
// (instructions(N) - instructions(0)) / N. `--cell` takes cells separated by `|`, typed in turn
// (`--cell='cd /tmp|cd /'`: every cell changes the directory). `--ps1` is the prompt bash is
// started with (hooks only: the floor's loop waits for its own mark at the end of its PS1; the
// bench's `hooks` contender keeps that PS1: pass --ps1=floor). With --strace it also counts bash's
// system calls and writes (strace -f), to the first prompt and per cell. Needs valgrind (and strace).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pty from "node-pty";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const arg = argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : arg.slice(name.length + 3);
};
const contender = opt("contender", "hooks");
const cells = Number(opt("cells", "20"));
const cellCodes = opt("cell", "echo hi").split("|");
const FLOOR_PS1 = "$ \\[\\e]777;floor;$?\\a\\]";
const ps1Option = opt("ps1", "$ ");
const ps1 = contender === "floor" || ps1Option === "floor" ? FLOOR_PS1 : ps1Option;
const dist = resolve(here, "..", opt("dist", "dist"));

/** A prompt is complete when the output ends with the floor's mark, or (hooks) with the status mark and the prompt's text after it. */
const promptEnd =
  ps1 === FLOOR_PS1
    ? /\x1b\]777;floor;\d+\x07(?:\x1b\][^\x07]*\x07)*$/
    : new RegExp(`\\x1b\\]6973;[\\w-]+;D;\\d+\\x07${ps1.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);

/** Runs bash under `wrap` (a command line ending before bash's own) for `n` cells; resolves once it exited. */
async function run(wrap, n) {
  const home = mkdtempSync(join(tmpdir(), "agent-tty-bash-cost-"));
  try {
    const env = { ...process.env, HOME: home, TERM: "xterm-256color", PS1: ps1 };
    let plan = { command: "bash", args: ["--norc", "--noprofile"], env };
    let encode = (code) => `${code}\r`;
    let detector;
    if (contender === "hooks") {
      const { detectors } = await import(join(dist, "index.js"));
      detector = detectors.shellIntegration();
      plan = await detector.setup({ command: "bash", args: ["--norc", "--noprofile"], cwd: home, env });
      // The detector hears what the session would tell it: every write, and the marks bash prints
      // (whether the line editor's line is empty decides whether a cell starts with the clear key).
      detector.inputWritten?.("");
      encode = (code) => detector.encode(code);
    }
    const p = pty.spawn(wrap[0], [...wrap.slice(1), plan.command, ...plan.args], {
      name: "xterm-256color",
      cols: 200,
      rows: 50,
      cwd: home,
      env: plan.env,
      encoding: null,
    });
    const exited = new Promise((done) => p.onExit(done));
    let tail = "";
    let waiting;
    p.onData((chunk) => {
      const text = chunk.toString("latin1");
      if (detector !== undefined) for (const [, mark] of text.matchAll(/\x1b\](6973;[^\x07]*)\x07/g)) detector.feed({ mark });
      tail = (tail + text).slice(-400);
      if (waiting !== undefined && promptEnd.test(tail)) {
        const done = waiting;
        waiting = undefined;
        tail = "";
        done();
      }
    });
    const prompt = () => new Promise((done) => (waiting = done));
    await prompt();
    for (let index = 0; index < n; index++) {
      const next = prompt();
      const bytes = encode(cellCodes[index % cellCodes.length]);
      detector?.inputWritten?.(bytes);
      p.write(bytes);
      await next;
    }
    detector?.inputWritten?.("exit\r");
    p.write("exit\r");
    await exited;
    detector?.dispose?.();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** bash's instructions for `n` cells (callgrind's total of bash's own process). */
async function instructions(n) {
  const dir = mkdtempSync(join(tmpdir(), "agent-tty-bash-cg-"));
  try {
    await run(["valgrind", "--tool=callgrind", `--callgrind-out-file=${join(dir, "cg.%p")}`], n);
    const [file] = readdirSync(dir);
    return Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), "utf8"))?.[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** bash's system calls and writes for `n` cells (strace -f: bash and anything it starts). */
async function syscalls(n) {
  const dir = mkdtempSync(join(tmpdir(), "agent-tty-bash-st-"));
  try {
    const out = join(dir, "strace");
    await run(["strace", "-f", "-o", out], n);
    const lines = readFileSync(out, "utf8")
      .split("\n")
      .filter((line) => /^\d+ +\w+\(/.test(line));
    return { calls: lines.length, writes: lines.filter((line) => /^\d+ +write\(/.test(line)).length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (spawnSync("valgrind", ["--version"]).status !== 0) throw new Error("valgrind is needed (apt-get install valgrind)");
const label = `${contender}, PS1=${JSON.stringify(ps1)}, cells ${JSON.stringify(cellCodes.join("|"))}`;
const zero = await instructions(0);
const many = await instructions(cells);
const result = { contender, ps1, cells: cellCodes, firstPromptAndExit: zero, perCell: Math.round((many - zero) / cells) };
console.log(
  `bash, ${label}: to the first prompt (and exit) ${(zero / 1e6).toFixed(3)}M instructions, per cell ${(result.perCell / 1e3).toFixed(1)}k`,
);
if (argv.includes("--strace")) {
  const s0 = await syscalls(0);
  const sn = await syscalls(cells);
  Object.assign(result, {
    syscallsToFirstPrompt: s0.calls,
    writesToFirstPrompt: s0.writes,
    syscallsPerCell: (sn.calls - s0.calls) / cells,
    writesPerCell: (sn.writes - s0.writes) / cells,
  });
  console.log(
    `  system calls: ${s0.calls} to the first prompt (and exit), ${s0.writes} writes; per cell ${result.syscallsPerCell}, ${result.writesPerCell} writes`,
  );
}
console.log(JSON.stringify(result));
