// Turns the merged results into the tables, the ratios and the goal verdicts.
const NAMES = {
  raw: "raw reader",
  floor: "floor",
  floor2: "floor A/A",
  hooks: "floor+SIhooks",
  si: "shellInteg.",
  prompt: "prompt",
  repeat: "repeatEnter",
  pexpect: "pexpect",
};
const COLS = ["raw", "floor", "floor2", "hooks", "si", "prompt", "repeat", "pexpect"];
/** Columns shown without a ratio (the floor itself, the raw reader). */
const NO_RATIO = ["raw", "floor"];

const fmt = (x, d) =>
  x == null || Number.isNaN(x) ? "-" : x.toFixed(d ?? (Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : Math.abs(x) >= 1 ? 2 : 3));
const ratio = (a, b) => (a == null || b == null || !(b > 0) ? null : a / b);

/** Rows of the full table: [label, workload, pick(result) -> number, ratioToFloor?, digits?] */
function rows(r) {
  const mb = r.plan?.flood ? `${r.plan.flood.params.bytes / 1e6} MB flood` : "flood";
  return [
    ["spawn-to-ready p50 ms", "spawn", (x) => x.p50, true],
    ["echo hi p50 ms", "echo", (x) => x.p50, true],
    ["echo hi p95 ms", "echo", (x) => x.p95, true],
    ["echo hi driver CPU us/cell", "echo", (x) => x.cpuPerCellUs, true],
    ["15 MB cell ms", "bigcell", (x) => x.ms, true],
    ["15 MB cell driver CPU ms", "bigcell", (x) => x.cpuMs, true],
    ["15 MB peak RSS MB", "bigcell", (x) => x.peakMB, true],
    ["15 MB peak RSS +MB above idle", "bigcell", (x) => x.peakAboveIdleMB, true],
    [`${mb} ms`, "flood", (x) => x.ms, true],
    [`${mb} driver CPU ms`, "flood", (x) => x.cpuMs, true],
    [`${mb} peak RSS +MB`, "flood", (x) => x.peakAboveIdleMB, false],
    [`${mb} after GC: RSS +MB`, "flood", (x) => x.retainedMB, false],
    [`${mb} after GC: heap +MB`, "flood", (x) => x.heapRetainedMB, false],
    ["idle RSS/session kB (50)", "idle", (x) => x.rssPerSessionMB * 1024, true, 1],
    ["idle CPU % (50 sessions)", "idle", (x) => x.idleCpuPct, false, 2],
    ["20x20 parallel cells ms", "parallel", (x) => x.ms, true],
    ["20 sessions spawn ms", "parallel", (x) => x.spawnMs, true],
  ];
}

/**
 * The issue's table (issue 11): each figure as a ratio to the floor of this
 * run, the A/A line (the floor against itself: the noise), pexpect beside.
 * [label, workload, agent-tty contender, pick, goal(w) -> { limit, unit, text }]
 */
const ISSUE = [
  ["echo cell p50 (shell integration)", "echo", "si", (x) => x.p50, { ratio: 1.2 }],
  ["echo cell p50, detectors.prompt", "echo", "prompt", (x) => x.p50, { ratio: 1.5 }],
  ["echo cell p50, detectors.repeatEnter", "echo", "repeat", (x) => x.p50, { ratio: 2.0 }],
  ["15 MB cell, whole output kept, wall", "bigcell", "si", (x) => x.ms, { ratio: 1.1 }],
  ["driver peak RSS in that cell, MB", "bigcell", "si", (x) => x.peakMB, { pexpect: true, absolute: true }],
  ["  the same, above idle, MB", "bigcell", "si", (x) => x.peakAboveIdleMB, { pexpect: true, absolute: true }],
  ["driver memory per idle session, kB", "idle", "si", (x) => x.rssPerSessionMB * 1024, { value: 50, absolute: true }],
  ["20 sessions x 20 cells in parallel", "parallel", "si", (x) => x.ms, { ratio: 1.2 }],
  ["spawn to ready", "spawn", "si", (x) => x.p50, { ratio: 1.5 }],
];

/** The rounds of a figure for the A/A spread: max/min of floor2/floor over rounds where it is a per-round scalar. */
function aa(res, w, pick) {
  const a = res[w]?.floor;
  const b = res[w]?.floor2;
  if (!a || !b) return null;
  return ratio(pick(b), pick(a));
}

function printIssueTable(res, targets) {
  if (!ISSUE.some(([, w]) => res[w])) return;
  const W0 = 38;
  const W = 12;
  const line = (label, cells) => console.log(label.padEnd(W0) + cells.map((s) => String(s).padStart(W)).join(""));
  console.log("\nissue 11 figures (ratio to the floor of this run; A/A = the floor against itself: the noise)");
  line("figure", ["floor", "A/A", "pexpect", "agent-tty", "goal", "verdict"]);
  for (const [label, w, c, pick, goal] of ISSUE) {
    const byC = res[w];
    if (!byC) continue;
    const floorV = byC.floor ? pick(byC.floor) : null;
    const v = byC[c] && !byC[c].errors ? pick(byC[c]) : null;
    const px = byC.pexpect && !byC.pexpect.errors ? pick(byC.pexpect) : null;
    const aaV = aa(res, w, pick);
    let cells;
    let met = null;
    let goalText;
    if (goal.absolute) {
      const limit = goal.pexpect ? px : goal.value;
      goalText = goal.pexpect ? "<= pexpect" : `<= ${goal.value}`;
      met = v != null && limit != null ? v <= limit : null;
      cells = [fmt(floorV), aaV == null ? "-" : `${aaV.toFixed(2)}x`, fmt(px), fmt(v), goalText];
      if (met != null) targets.push({ target: label.trim(), contender: c, value: v, limit, met });
    } else {
      const q = ratio(v, floorV);
      goalText = `<= ${goal.ratio}x`;
      met = q != null ? q <= goal.ratio : null;
      const pq = ratio(px, floorV);
      cells = [
        "1.00x",
        aaV == null ? "-" : `${aaV.toFixed(2)}x`,
        pq == null ? "-" : `${pq.toFixed(2)}x`,
        q == null ? "-" : `${q.toFixed(2)}x`,
        goalText,
      ];
      if (met != null) targets.push({ target: label.trim(), contender: c, value: q, limit: goal.ratio, met });
    }
    line(label, [...cells, met == null ? "n/a" : met ? "met" : "MISSED"]);
  }
}

/** The scale curve: per-cell cost at 1..100 concurrent sessions, and its ratio to the floor at the same count. */
function printScale(r) {
  const res = r.results;
  const keys = Object.keys(res)
    .filter((k) => /^scale\d+$/.test(k))
    .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  if (!keys.length) return;
  const cols = COLS.filter((c) => keys.some((k) => res[k][c]));
  const W0 = 22;
  const W = 16;
  const line = (label, cells) => console.log(label.padEnd(W0) + cells.map((s) => String(s).padStart(W)).join(""));
  const cells = r.plan?.[keys[0]]?.params?.cells;
  console.log(`\nscale: ms per cell, N sessions each running ${cells ?? "?"} cells at once (x = ratio to the floor at the same N)`);
  line(
    "sessions",
    cols.map((c) => NAMES[c]),
  );
  for (const k of keys) {
    const floorV = res[k].floor?.perCellMs;
    line(
      k.slice(5),
      cols.map((c) => {
        const x = res[k][c];
        if (!x) return "";
        if (x.errors) return "ERROR";
        const q = c !== "floor" ? ratio(x.perCellMs, floorV) : null;
        return fmt(x.perCellMs) + (q ? ` (${q.toFixed(2)}x)` : "");
      }),
    );
  }
}

export function printReport(r) {
  const res = r.results;
  const cols = COLS.filter((c) => Object.values(res).some((w) => w?.[c]));
  const W0 = 34;
  const W = 15;
  const line = (label, cells) => console.log(label.padEnd(W0) + cells.map((s) => s.padStart(W)).join(""));
  console.log(
    `\nagent-tty bench${r.quick ? " --quick" : ""} · node ${r.node}${r.pexpect ? ` · pexpect ${r.pexpect}` : ""} · ${r.cpus} cpus · load ${r.loadavg.start.toFixed(1)}→${r.loadavg.end.toFixed(1)} · ${r.wallSeconds.toFixed(0)} s`,
  );
  console.log("(x = ratio to the floor measured in the same run; the machine is shared, absolute times only inform)\n");
  line(
    "",
    cols.map((c) => NAMES[c]),
  );
  for (const [label, w, pick, withRatio, digits] of rows(r)) {
    if (!res[w]) continue;
    const floorV = res[w].floor ? pick(res[w].floor) : null;
    line(
      label,
      cols.map((c) => {
        const x = res[w][c];
        if (!x || x.errors || x.skipped) return x?.errors ? "ERROR" : x?.skipped ? "skipped" : "";
        const v = pick(x);
        const q = withRatio && !NO_RATIO.includes(c) ? ratio(v, floorV) : null;
        return fmt(v, digits) + (q ? ` (${q.toFixed(2)}x)` : "");
      }),
    );
  }
  const checked = Object.keys(res).filter((w) => ["echo", "bigcell", "flood", "parallel"].includes(w) || /^scale\d+$/.test(w));
  if (checked.length) {
    line(
      "output verified",
      cols.map((c) => {
        const oks = checked.map((w) => res[w][c]).filter((x) => x && !x.skipped);
        if (!oks.length) return "";
        return oks.every((x) => x.ok !== false && !x.errors) ? "OK" : "MISMATCH";
      }),
    );
  }

  const targets = [];
  printIssueTable(res, targets);
  if (res.flood) {
    for (const c of ["si", "prompt", "repeat"]) {
      const v = res.flood[c]?.peakAboveIdleMB;
      if (v != null) targets.push({ target: "flood peak < 100 MB above idle", contender: c, value: v, limit: 100, met: v < 100 });
    }
    const bounded = targets.filter((t) => t.target.startsWith("flood"));
    if (bounded.length)
      console.log(
        `flood stays bounded (peak < 100 MB above idle): ${bounded.map((t) => `${NAMES[t.contender]} ${fmt(t.value)} MB ${t.met ? "met" : "MISSED"}`).join(", ")}`,
      );
  }
  printScale(r);

  if (res.cli) {
    const k = res.cli;
    console.log("\nCLI as whole processes (each call pays Node start-up)");
    console.log(`  k new        p50 ${fmt(k.new.p50)} ms   (${k.new.n} runs)`);
    console.log(`  k run -j     p50 ${fmt(k.run.p50)} ms   p95 ${fmt(k.run.p95)} ms   (${k.run.n} runs)`);
    console.log(`  node -e 0    p50 ${fmt(k.node.p50)} ms   (start-up floor; k run = ${ratio(k.run.p50, k.node.p50)?.toFixed(2)}x)`);
  }

  const failures = [];
  for (const [w, byC] of Object.entries(res)) {
    for (const [c, x] of Object.entries(byC)) {
      for (const e of x?.errors ?? []) failures.push(`${w}/${c}: crashed: ${e.split("\n").slice(0, 3).join(" | ")}`);
      if (x?.ok === false) failures.push(`${w}/${c}: output MISMATCH: ${(x.details ?? []).join("; ")}`);
    }
  }
  console.log(
    `\nseconds per workload: ${Object.entries(r.seconds ?? {})
      .map(([w, s]) => `${w} ${s.toFixed(0)}`)
      .join(", ")}`,
  );
  for (const n of r.notes) console.log(`note: ${n}`);
  for (const f of failures) console.log(`FAIL ${f}`);
  return { targets, failures };
}
