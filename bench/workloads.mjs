// One function per workload. Each runs inside a fresh worker process (see
// worker.mjs) so heap and RSS figures are clean, and returns plain data.
import { readRaw } from "./floor.mjs";
import { MB, resetRssPeak, rssNow, rssPeak, settleHeap, sleep } from "./stats.mjs";

const now = () => performance.now();
/** CPU time (user + system) this process spent since `c0`, in ms. */
const cpuSince = (c0) => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};

async function closeAll(handles) {
  await Promise.allSettled(handles.map((h) => h.close()));
}

/** seq 1 N as a cell's clean output: lines joined by \n, no trailing \n. */
export function seqText(n) {
  const parts = new Array(n);
  for (let i = 0; i < n; i++) parts[i] = String(i + 1);
  return parts.join("\n");
}

/** Bytes of `seq 1 N` on a terminal (\r\n line ends), given its clean text. */
const seqTtyBytes = (text, n) => Buffer.byteLength(text) + n + 1;

function checkText(got, want, what) {
  if (got === want) return { ok: true };
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  return {
    ok: false,
    detail: `${what}: ${got.length} chars vs ${want.length} expected; first difference at ${i}: got ${JSON.stringify(got.slice(Math.max(0, i - 20), i + 20))}`,
  };
}

export const workloads = {
  /** Spawn-to-ready, `n` times after one untimed warm-up spawn. */
  async spawn(c, { n }, { home }) {
    await (await c.spawn({ home })).close();
    const ms = [];
    for (let i = 0; i < n; i++) {
      const t0 = now();
      const h = await c.spawn({ home });
      ms.push(now() - t0);
      await h.close();
    }
    return { ms };
  },

  /** `echo hi` round trips on one session, output checked on every cell. */
  async echo(c, { n, warm }, { home }) {
    const h = await c.spawn({ home });
    const ms = [];
    let bad = null;
    let badCells = 0;
    let cpu0;
    let cpuPerCellUs;
    try {
      for (let i = 0; i < warm + n; i++) {
        if (i === warm) cpu0 = process.cpuUsage();
        const t0 = now();
        const r = await h.run("echo hi");
        const t = now() - t0;
        if (i >= warm) ms.push(t);
        const got = h.text(r);
        if (got === "hi") continue;
        badCells++;
        bad ??= `cell ${i}: output ${JSON.stringify(got)}`;
      }
      cpuPerCellUs = (cpuSince(cpu0) / n) * 1000;
    } finally {
      await h.close();
    }
    return { ms, cpuPerCellUs, ok: !bad, ...(bad ? { detail: `${badCells} of ${warm + n} cells wrong; first: ${bad}` } : {}) };
  },

  /** `seq 1 N` (~15 MB for 2e6) in one cell: wall time, peak RSS, exact output. */
  async bigcell(c, { lines }, { home }) {
    // The expected text is built after the peak is read: the absolute peak is the driver's own.
    let want;
    if (c.id === "raw") {
      // sleep keeps the PTY open: bytes still queued when seq exits would be lost.
      const seqArgs = (k) => ["-c", 'seq 1 "$1"; exec sleep 600', "sh", String(k)];
      await readRaw("sh", seqArgs(10), { cwd: home, expectBytes: seqTtyBytes(seqText(10), 10) });
      const expectBytes = seqTtyBytes(seqText(lines), lines);
      await settleHeap();
      const idle = rssNow();
      resetRssPeak();
      const cpu0 = process.cpuUsage();
      const r = await readRaw("sh", seqArgs(lines), { cwd: home, expectBytes });
      const cpuMs = cpuSince(cpu0);
      const peak = rssPeak();
      want = seqText(lines);
      const text = r.text.replace(/\r\n/g, "\n").slice(0, -1);
      const v = r.timedOut ? { ok: false, detail: `timed out after ${r.bytes} bytes` } : checkText(text, want, "raw");
      return { ms: r.ms, cpuMs, peakAboveIdleMB: (peak - idle) / MB, peakMB: peak / MB, ...v };
    }
    const h = await c.spawn({ home, maxOutputBytes: 64 * MB, timeoutMs: 300_000 });
    try {
      await h.run("seq 1 10");
      await settleHeap();
      const idle = rssNow();
      resetRssPeak();
      const cpu0 = process.cpuUsage();
      const t0 = now();
      const r = await h.run(`seq 1 ${lines}`);
      const ms = now() - t0;
      const cpuMs = cpuSince(cpu0);
      const peak = rssPeak();
      want = seqText(lines);
      const v = checkText(h.text(r), want, c.id);
      if (r.status && r.status !== "done") Object.assign(v, { ok: false, detail: `status ${r.status}` });
      return { ms, cpuMs, peakAboveIdleMB: (peak - idle) / MB, peakMB: peak / MB, ...v };
    } finally {
      await h.close();
    }
  },

  /**
   * `bytes` of distinct 100-byte lines (zero-padded numbers: identical lines
   * would end a repeat-enter frame by design) with the default output cap.
   */
  async flood(c, { bytes }, { home }) {
    const h = await c.spawn({ home, timeoutMs: 900_000 });
    try {
      await h.run("echo warm");
      await settleHeap();
      const idle = rssNow();
      const heap0 = process.memoryUsage().heapUsed;
      resetRssPeak();
      const lines = Math.floor(bytes / 100);
      const cpu0 = process.cpuUsage();
      const t0 = now();
      const r = await h.flood(`seq -f '%099.0f' 1 ${lines} | cat`);
      const ms = now() - t0;
      const cpuMs = cpuSince(cpu0);
      const peak = rssPeak();
      await settleHeap();
      const retainedMB = (rssNow() - idle) / MB;
      const heapRetainedMB = (process.memoryUsage().heapUsed - heap0) / MB;
      return { ms, cpuMs, peakAboveIdleMB: (peak - idle) / MB, retainedMB, heapRetainedMB, ...checkFlood(c, r, lines) };
    } finally {
      await h.close();
    }
  },

  /** `n` idle sessions: RSS per session and CPU burnt while idle. */
  async idle(c, { n, idleMs = 2000 }, { home }) {
    await (await c.spawn({ home })).close();
    await settleHeap();
    const before = process.memoryUsage();
    const hs = [];
    try {
      for (let i = 0; i < n; i++) hs.push(await c.spawn({ home }));
      await sleep(300);
      await settleHeap();
      const after = process.memoryUsage();
      const cpu0 = process.cpuUsage();
      const t0 = now();
      await sleep(idleMs);
      const cpu = process.cpuUsage(cpu0);
      const cpuPct = ((cpu.user + cpu.system) / 1000 / (now() - t0)) * 100;
      const per = (k) => (after[k] - before[k]) / n / MB;
      return {
        rssPerSessionMB: per("rss"),
        heapPerSessionMB: per("heapUsed"),
        externalPerSessionMB: per("external"),
        idleCpuPct: cpuPct,
      };
    } finally {
      await closeAll(hs);
    }
  },

  /** `sessions` sessions each running `cells` cells, all at once: the cost of one cell at that scale. */
  async scale(c, { sessions, cells }, { home }) {
    const r = await workloads.parallel(c, { sessions, cells }, { home });
    return { ...r, perCellMs: r.ms / (sessions * cells) };
  },

  /** `sessions` sessions each running `cells` cells, all at once. */
  async parallel(c, { sessions, cells }, { home }) {
    const t0 = now();
    const made = await Promise.allSettled(Array.from({ length: sessions }, () => c.spawn({ home })));
    const spawnMs = now() - t0;
    const hs = made.filter((m) => m.status === "fulfilled").map((m) => m.value);
    const failed = made.find((m) => m.status === "rejected");
    if (failed) {
      await closeAll(hs);
      throw failed.reason;
    }
    let bad = null;
    try {
      const t1 = now();
      await Promise.all(
        hs.map(async (h, s) => {
          for (let i = 0; i < cells; i++) {
            const want = `s${s}c${i}`;
            const got = h.text(await h.run(`echo ${want}`));
            if (got !== want && !bad) bad = `session ${s} cell ${i}: ${JSON.stringify(got)}`;
          }
        }),
      );
      return { ms: now() - t1, spawnMs, ok: !bad, ...(bad ? { detail: bad } : {}) };
    } finally {
      await closeAll(hs);
    }
  },
};

const pad = (i) => String(i).padStart(99, "0");

/** The flood's result: the floor counts bytes; agent-tty keeps head + tail. */
function checkFlood(c, r, lines) {
  const bytes = lines * 100;
  if (c.id === "floor") {
    // tty bytes: echo + \r\n per line + prompt: at least bytes + lines.
    const ok = r.bytes >= bytes + lines;
    return { ok, ...(ok ? {} : { detail: `floor got ${r.bytes} bytes, expected over ${bytes + lines}` }) };
  }
  if (r.status !== "done") return { ok: false, detail: `status ${r.status} after ${r.output.length} chars` };
  const out = r.output;
  const m = /\n?\[… (\d+) bytes omitted …\]\n?/.exec(out);
  if (!r.truncated || !m) return { ok: false, detail: `not truncated (${out.length} chars, truncated=${r.truncated})` };
  const omitted = Number(m[1]);
  const head = out.slice(0, m.index).split("\n");
  const tail = out.slice(m.index + m[0].length).split("\n");
  const kept = Buffer.byteLength(out) - Buffer.byteLength(m[0]);
  const problems = [];
  if (r.omittedBytes !== omitted) problems.push(`omittedBytes ${r.omittedBytes} vs marker ${omitted}`);
  if (Math.abs(kept + omitted - (bytes - 1)) > 2) problems.push(`kept ${kept} + omitted ${omitted} != ${bytes - 1}`);
  // Head: lines 1, 2, 3… (the last may be cut); tail: …, N-1, N (the first may be cut).
  const badHead = head.findIndex((l, i) => (i === head.length - 1 ? !pad(i + 1).startsWith(l) : l !== pad(i + 1)));
  if (badHead >= 0) problems.push(`head line ${badHead + 1} is ${JSON.stringify(head[badHead].slice(0, 120))}`);
  const badTail = tail.findIndex((l, i) => {
    const want = pad(lines - (tail.length - 1 - i));
    return i === 0 ? !want.endsWith(l) : l !== want;
  });
  if (badTail >= 0) problems.push(`tail line ${badTail + 1} of ${tail.length} is ${JSON.stringify(tail[badTail].slice(0, 120))}`);
  return problems.length ? { ok: false, detail: problems.join("; ") } : { ok: true, keptBytes: kept, omittedBytes: omitted };
}
