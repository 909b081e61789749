// Runs one workload for one contender in this fresh process and prints one
// JSON line: node --expose-gc bench/worker.mjs '{"contender":"si","workload":"echo","params":{…}}'
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { byId } from "./contenders.mjs";
import { workloads } from "./workloads.mjs";

const job = JSON.parse(process.argv[2]);
const home = mkdtempSync(join(tmpdir(), "agent-tty-bench-"));
let out;
try {
  const c = job.contender === "raw" ? { id: "raw" } : byId(job.contender);
  if (!c) throw new Error(`unknown contender ${job.contender}`);
  out = await workloads[job.workload](c, job.params, { home });
} catch (e) {
  out = { error: String(e?.stack ?? e) };
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
