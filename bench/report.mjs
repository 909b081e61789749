// Turns the merged results into the table, the ratios and the target verdicts.
const NAMES = { raw: "raw reader", floor: "floor", hooks: "floor+SIhooks", si: "shellInteg.", prompt: "prompt", repeat: "repeatEnter" };
const COLS = ["raw", "floor", "hooks", "si", "prompt", "repeat"];
const FLOORS = ["raw", "floor", "hooks"];

const fmt = (x, d) =>
  x == null || Number.isNaN(x) ? "-" : x.toFixed(d ?? (Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : Math.abs(x) >= 1 ? 2 : 3));
const ratio = (a, b) => (a == null || b == null || !(b > 0) ? null : a / b);

/** Rows: [label, workload, pick(result) -> number, ratioToFloor?] */
function rows(r) {
  const mb = r.plan?.flood ? `${r.plan.flood.params.bytes / 1e6} MB flood` : "flood";
  return [
    ["spawn-to-ready p50 ms", "spawn", (x) => x.p50, true],
    ["echo hi p50 ms", "echo", (x) => x.p50, true],
    ["echo hi p95 ms", "echo", (x) => x.p95, true],
    ["echo hi driver CPU us/cell", "echo", (x) => x.cpuPerCellUs, true],
    ["15 MB cell ms", "bigcell", (x) => x.ms, true],
    ["15 MB cell driver CPU ms", "bigcell", (x) => x.cpuMs, true],
    ["15 MB peak RSS +MB", "bigcell", (x) => x.peakAboveIdleMB, false],
    [`${mb} ms`, "flood", (x) => x.ms, true],
    [`${mb} driver CPU ms`, "flood", (x) => x.cpuMs, true],
    [`${mb} peak RSS +MB`, "flood", (x) => x.peakAboveIdleMB, false],
    [`${mb} after GC: RSS +MB`, "flood", (x) => x.retainedMB, false],
    [`${mb} after GC: heap +MB`, "flood", (x) => x.heapRetainedMB, false],
    ["idle RSS/session MB (50)", "idle", (x) => x.rssPerSessionMB, false, 3],
    ["idle CPU % (50 sessions)", "idle", (x) => x.idleCpuPct, false, 2],
    ["20x20 parallel cells ms", "parallel", (x) => x.ms, true],
    ["20 sessions spawn ms", "parallel", (x) => x.spawnMs, true],
  ];
}

const TARGETS = [
  ["echo p50 <= 1.3x floor", "echo", (w) => ratio(w.c?.p50, w.floor?.p50), 1.3, "x"],
  ["spawn p50 <= 1.5x floor", "spawn", (w) => ratio(w.c?.p50, w.floor?.p50), 1.5, "x"],
  ["15 MB cell <= 1.3x floor", "bigcell", (w) => ratio(w.c?.ms, w.floor?.ms), 1.3, "x"],
  ["15 MB cell <= 1.5x raw (issue 2)", "bigcell", (w) => ratio(w.c?.ms, w.raw?.ms), 1.5, "x"],
  ["flood peak < 100 MB above idle", "flood", (w) => w.c?.peakAboveIdleMB, 100, " MB"],
  ["idle < 1 MB per session", "idle", (w) => w.c?.rssPerSessionMB, 1, " MB"],
];

export function printReport(r) {
  const res = r.results;
  const cols = COLS.filter((c) => Object.values(res).some((w) => w?.[c]));
  const W0 = 34;
  const W = 15;
  const line = (label, cells) => console.log(label.padEnd(W0) + cells.map((s) => s.padStart(W)).join(""));
  console.log(
    `\nagent-tty bench${r.quick ? " --quick" : ""} · node ${r.node} · ${r.cpus} cpus · load ${r.loadavg.start.toFixed(1)}→${r.loadavg.end.toFixed(1)} · ${r.wallSeconds.toFixed(0)} s`,
  );
  console.log("(x = ratio to the floor measured in the same run; the machine is shared, absolute times only inform)\n");
  line("", cols.map((c) => NAMES[c]));
  for (const [label, w, pick, withRatio, digits] of rows(r)) {
    if (!res[w]) continue;
    const floorV = res[w].floor ? pick(res[w].floor) : null;
    line(
      label,
      cols.map((c) => {
        const x = res[w][c];
        if (!x || x.errors || x.skipped) return x?.errors ? "ERROR" : x?.skipped ? "skipped" : "";
        const v = pick(x);
        const q = withRatio && c !== "floor" && c !== "raw" ? ratio(v, floorV) : null;
        return fmt(v, digits) + (q ? ` (${q.toFixed(2)}x)` : "");
      }),
    );
  }
  const checked = ["echo", "bigcell", "flood", "parallel"].filter((w) => res[w]);
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
  const libCols = cols.filter((c) => !FLOORS.includes(c));
  if (libCols.length) {
    console.log("\ntargets (issue 5 unless said)");
    line("", libCols.map((c) => NAMES[c]));
    for (const [label, w, get, limit, unit] of TARGETS) {
      if (!res[w]) continue;
      const cells = libCols.map((c) => {
        const v = get({ c: res[w][c], floor: res[w].floor, raw: res[w].raw });
        if (v == null || Number.isNaN(v)) return "n/a";
        const met = unit === "x" ? v <= limit : v < limit;
        targets.push({ target: label, contender: c, value: v, limit, met });
        return `${fmt(v, 2)}${unit} ${met ? "met" : "MISSED"}`;
      });
      line(label, cells);
    }
  }

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
  console.log(`\nseconds per workload: ${Object.entries(r.seconds ?? {}).map(([w, s]) => `${w} ${s.toFixed(0)}`).join(", ")}`);
  for (const n of r.notes) console.log(`note: ${n}`);
  for (const f of failures) console.log(`FAIL ${f}`);
  return { targets, failures };
}
