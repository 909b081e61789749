import pty from "node-pty";
import { FloorShell } from "./floor.mjs";
import { execSync } from "node:child_process";
const home = "/tmp";
async function trial(delay, sig) {
  const sh = await FloorShell.spawn({ home });
  const pid = sh.pid;
  if (delay) await new Promise((r) => setTimeout(r, delay));
  process.kill(pid, sig);
  await new Promise((r) => setTimeout(r, 100));
  let st = "gone";
  try { st = execSync(`cat /proc/${pid}/stat 2>/dev/null | cut -d' ' -f3`).toString().trim() || "gone"; } catch {}
  let wchan = ""; try { wchan = execSync(`cat /proc/${pid}/wchan 2>/dev/null`).toString(); } catch {}
  let sigs = ""; try { sigs = execSync(`grep -E 'Sig(Blk|Ign|Cgt|Pnd)|ShdPnd' /proc/${pid}/status 2>/dev/null`).toString().replace(/\n/g, " "); } catch {}
  await sh.close();
  return st === "gone" ? "gone" : `${st} ${wchan} ${sigs}`;
}
for (const delay of [0, 50]) for (const sig of ["SIGHUP"]) {
  const r = []; for (let i = 0; i < 12; i++) r.push(await trial(delay, sig));
  console.log(delay, sig, r.filter((x) => x === "gone").length, "/12 gone;", r.find((x) => x !== "gone") ?? "");
}
process.exit(0);
