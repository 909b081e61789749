import { appendFileSync } from "node:fs";

/** Notes a session's pid (or any pid) where the parent test can check that it is gone after the run. */
export function notePid(target) {
  const file = process.env.AGENT_TTY_SAMPLE_PIDS;
  const pid = typeof target === "number" ? target : target.pid;
  if (file !== undefined && pid !== undefined) appendFileSync(file, `${pid}\n`);
  return target;
}
