// The physical floor: the least a program can do to drive bash through
// node-pty. A marker at the end of PS1 says "prompt drawn, ready" (PS1, not
// PROMPT_COMMAND: see PITFALLS, the prompt is the only safe moment to write),
// and carries $? as the exit code. Raw Buffers (encoding: null), one decode.
import pty from "node-pty";

const FLOOR_MARK = Buffer.from("\x1b]777;floor;");
const BEL = 0x07;
const TAIL = 160;
const PS1 = "$ \\[\\e]777;floor;$?\\a\\]";

/** Environment every bash contender gets (no user rc files: HOME is empty). */
export function benchEnv(home, extra = {}) {
  return { ...process.env, HOME: home, TERM: "xterm-256color", ...extra };
}

/**
 * Where the marker starts in `win`, or -1. The marker (digits, then BEL) may
 * only be followed by other complete OSC strings (marks another PS1 hook adds).
 */
function markAt(win, mark) {
  if (win[win.length - 1] !== BEL) return -1;
  const at = win.lastIndexOf(mark);
  if (at < 0) return -1;
  let i = at + mark.length;
  while (i < win.length && win[i] >= 0x30 && win[i] <= 0x39) i++;
  if (win[i] !== BEL) return -1;
  for (i++; i < win.length;) {
    if (win[i] !== 0x1b || win[i + 1] !== 0x5d) return -1;
    const end = win.indexOf(BEL, i);
    if (end < 0) return -1;
    i = end + 1;
  }
  return at;
}

/** A bash on node-pty that waits for its PS1 marker after every command. */
export class FloorShell {
  #p;
  #tail = Buffer.alloc(0);
  #job = null;
  #exited;
  #mark;

  constructor(p, mark) {
    this.#p = p;
    this.#mark = mark;
    this.#exited = new Promise((r) => p.onExit(r));
    p.onData((buf) => this.#onData(buf));
  }

  /**
   * `plan` (command, args, env) replaces the plain `bash --norc --noprofile`;
   * `mark` (the bytes before the digits and BEL) replaces the PS1 marker.
   */
  static spawn({ home, cols = 200, rows = 50, env = {}, plan, mark = FLOOR_MARK }) {
    const p = pty.spawn(plan?.command ?? "bash", plan?.args ?? ["--norc", "--noprofile"], {
      name: "xterm-256color",
      cols,
      rows,
      cwd: home,
      env: { ...(plan?.env ?? benchEnv(home)), PS1, ...env },
      encoding: null,
    });
    const sh = new FloorShell(p, mark);
    return sh.#wait(false).then(() => sh);
  }

  get pid() {
    return this.#p.pid;
  }

  #onData(buf) {
    const job = this.#job;
    if (!job) return;
    job.bytes += buf.length;
    if (job.keep) job.chunks.push(buf);
    if (buf[buf.length - 1] !== BEL) {
      this.#tail = buf.length >= TAIL ? buf.subarray(buf.length - TAIL) : Buffer.concat([this.#tail, buf]).subarray(-TAIL);
      return;
    }
    const win = Buffer.concat([this.#tail, buf.subarray(Math.max(0, buf.length - TAIL))]);
    this.#tail = win.subarray(-TAIL);
    const mark = this.#mark;
    const at = markAt(win, mark);
    if (at < 0) return;
    this.#job = null;
    this.#tail = Buffer.alloc(0);
    const exitCode = Number.parseInt(win.subarray(at + mark.length, at + mark.length + 12).toString("latin1"), 10);
    job.resolve({ raw: job.keep ? Buffer.concat(job.chunks).toString("utf8") : undefined, bytes: job.bytes, exitCode });
  }

  #wait(keep) {
    return new Promise((resolve) => {
      this.#job = { keep, chunks: [], bytes: 0, resolve };
    });
  }

  /** Write one command, resolve with everything up to the next prompt. */
  run(code) {
    const done = this.#wait(true);
    this.#p.write(code + "\r");
    return done;
  }

  /** Write these exact bytes (e.g. a bracketed paste), same wait. */
  runBytes(bytes) {
    const done = this.#wait(true);
    this.#p.write(bytes);
    return done;
  }

  /** Same, keeping nothing but the byte count (the flood floor). */
  runDiscard(code) {
    const done = this.#wait(false);
    this.#p.write(code + "\r");
    return done;
  }

  /** Never timed: SIGHUP, and SIGKILL soon after (bash sometimes outlives a SIGHUP sent right after its prompt). */
  async close() {
    this.#p.kill("SIGHUP");
    const t = setTimeout(() => {
      try {
        this.#p.kill("SIGKILL");
      } catch {}
    }, 50);
    await this.#exited;
    clearTimeout(t);
  }
}

/** The floor's raw text as a cell's clean output (done outside the timing). */
export function floorClean(raw) {
  let s = raw;
  const end = s.lastIndexOf("$ \x1b]777;floor;");
  if (end >= 0) s = s.slice(0, end);
  s = s.replace(/\x1b\[\?2004[hl]/g, "").replace(/\x1b\][^\x07]*\x07/g, "");
  s = s.slice(s.indexOf("\n") + 1);
  const prompt = s.lastIndexOf("\n");
  if (end < 0) s = s.slice(0, prompt + 1); // someone else's prompt: the last line
  s = s.replace(/\r\n/g, "\n").replace(/^\r/, "");
  return s.endsWith("\n") ? s.slice(0, -1) : s;
}

/**
 * The raw reader: spawn `file args` on node-pty with no shell and read until
 * `expectBytes` have come (not until exit: data can arrive after it, node-pty
 * #72). Resolves with the decoded text and the time from spawn.
 */
export function readRaw(file, args, { cwd, expectBytes, timeoutMs = 120_000 }) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const chunks = [];
    let bytes = 0;
    let done = false;
    const p = pty.spawn(file, args, {
      name: "xterm-256color",
      cols: 200,
      rows: 50,
      cwd,
      env: process.env,
      encoding: null,
    });
    const finish = (timedOut) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const ms = performance.now() - t0;
      try {
        p.kill("SIGKILL");
      } catch {}
      resolve({ text, bytes, ms, timedOut });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    p.onData((buf) => {
      chunks.push(buf);
      bytes += buf.length;
      if (bytes >= expectBytes) finish(false);
    });
  });
}
