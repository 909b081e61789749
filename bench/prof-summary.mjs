// Summarize V8 .cpuprofile files (from `npm run bench -- --profile`, or any
// `node --cpu-prof`): where the time goes, by area and by function, self and
// inclusive. Usage: node bench/prof-summary.mjs <dir|file...> [--filter=bigcell-si] [--top=25]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const argv = process.argv.slice(2);
const opt = (n, d) => argv.find((a) => a.startsWith(`--${n}=`))?.split("=")[1] ?? d;
const top = Number(opt("top", 25));
const filter = opt("filter", "");
const files = argv
  .filter((a) => !a.startsWith("--"))
  .flatMap((p) => (statSync(p).isDirectory() ? readdirSync(p).map((f) => join(p, f)) : [p]))
  .filter((f) => f.endsWith(".cpuprofile") && f.includes(filter));
if (!files.length) {
  console.error("no .cpuprofile files matched");
  process.exit(2);
}

const cwd = process.cwd();
function area(url, fn) {
  if (!url) return fn.startsWith("(") ? fn : "(native/builtin)";
  if (url.includes("/dist/")) return "agent-tty dist/";
  if (url.includes("/node_modules/")) return "node_modules/" + url.split("/node_modules/").pop().split("/")[0];
  if (url.includes("/bench/")) return "bench harness";
  if (url.startsWith("node:")) return "node core";
  return "other";
}
const where = (cf) => {
  const u = cf.url.startsWith("file://") ? relative(cwd, new URL(cf.url).pathname) : cf.url;
  return `${cf.functionName || "(anonymous)"} ${u}:${cf.lineNumber + 1}`;
};

for (const file of files) {
  const p = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const incl = new Map();
  const areas = new Map();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    total += dt;
    const n = byId.get(p.samples[i]);
    const k = where(n.callFrame);
    self.set(k, (self.get(k) ?? 0) + dt);
    const a = area(n.callFrame.url, n.callFrame.functionName);
    areas.set(a, (areas.get(a) ?? 0) + dt);
    const seen = new Set();
    for (let id = n.id; id != null; id = parent.get(id)) {
      const kk = where(byId.get(id).callFrame);
      if (seen.has(kk)) continue;
      seen.add(kk);
      incl.set(kk, (incl.get(kk) ?? 0) + dt);
    }
  }
  const pct = (v) => `${((v / total) * 100).toFixed(1).padStart(5)}%`;
  const show = (title, m, pred = () => true) => {
    console.log(`  ${title}`);
    for (const [k, v] of [...m]
      .filter(([k]) => pred(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)) {
      console.log(`    ${pct(v)} ${v.toFixed(0).padStart(6)} ms  ${k}`);
    }
  };
  console.log(`\n${relative(cwd, file)}: ${total.toFixed(0)} ms sampled`);
  show("by area (self time)", areas);
  show("hottest functions (self)", self, (k) => !k.startsWith("(idle)"));
  show("agent-tty functions (inclusive)", incl, (k) => k.includes("dist/"));
}
