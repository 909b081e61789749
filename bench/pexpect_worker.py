# The pexpect contender: the same workloads as workloads.mjs, driven by
# pexpect (python3-pexpect) the way its users do it: a unique PS1, sendline(),
# expect_exact(PS1), the output in child.before. Runs in a fresh process and
# prints one JSON line, like worker.mjs:
#   python3 bench/pexpect_worker.py '{"workload":"echo","params":{...}}'
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time

try:
    import pexpect
except ImportError:  # the runner checks first; this is the belt to its braces
    print(json.dumps({"error": "SKIP: pexpect is not installed (apt-get install python3-pexpect)"}))
    sys.exit(0)

PROMPT = "PEXPECT_PROMPT> "
MB = 1024 * 1024


def now_ms():
    return time.perf_counter() * 1000


def cpu_ms():
    return time.process_time() * 1000


def rss_now():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def rss_peak():
    with open("/proc/self/status") as f:
        m = re.search(r"VmHWM:\s+(\d+) kB", f.read())
    return int(m.group(1)) * 1024 if m else float("nan")


def reset_rss_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


class Shell:
    """bash --norc --noprofile under pexpect, PS1 a unique string."""

    def __init__(self, home, timeout=60):
        env = dict(os.environ, HOME=home, TERM="xterm-256color", PS1=PROMPT)
        self.child = pexpect.spawn(
            "bash", ["--norc", "--noprofile"], env=env, cwd=home,
            encoding="utf-8", dimensions=(50, 200), timeout=timeout, echo=True,
        )
        # pexpect sleeps 50 ms before every send by default; its users who care turn that off.
        self.child.delaybeforesend = None
        self.child.expect_exact(PROMPT)

    def run(self, code, timeout=-1):
        self.child.sendline(code)
        self.child.expect_exact(PROMPT, timeout=timeout)
        return self.child.before

    @staticmethod
    def text(before):
        # before = echo line + output, \r\n line ends, bracketed-paste toggles around the echo.
        s = before.replace("\x1b[?2004l", "").replace("\x1b[?2004h", "")
        s = s[s.find("\n") + 1:]
        s = s.replace("\r\n", "\n")
        if s.startswith("\r"):
            s = s[1:]
        return s[:-1] if s.endswith("\n") else s

    def close(self):
        self.child.close(force=True)


def seq_text(n):
    return "\n".join(str(i + 1) for i in range(n))


def w_spawn(home, p):
    Shell(home).close()
    ms = []
    for _ in range(p["n"]):
        t0 = now_ms()
        sh = Shell(home)
        ms.append(now_ms() - t0)
        sh.close()
    return {"ms": ms}


def w_echo(home, p):
    sh = Shell(home)
    ms, bad = [], None
    c0 = None
    try:
        for i in range(p["warm"] + p["n"]):
            if i == p["warm"]:
                c0 = cpu_ms()
            t0 = now_ms()
            before = sh.run("echo hi")
            t = now_ms() - t0
            if i >= p["warm"]:
                ms.append(t)
            got = Shell.text(before)
            if got != "hi" and bad is None:
                bad = "cell %d: output %r" % (i, got)
        cpu = (cpu_ms() - c0) / p["n"] * 1000
    finally:
        sh.close()
    out = {"ms": ms, "cpuPerCellUs": cpu, "ok": bad is None}
    if bad:
        out["detail"] = bad
    return out


def w_bigcell(home, p):
    lines = p["lines"]
    want = seq_text(lines)
    sh = Shell(home, timeout=300)
    try:
        sh.run("seq 1 10")
        idle = rss_now()
        reset_rss_peak()
        c0 = cpu_ms()
        t0 = now_ms()
        before = sh.run("seq 1 %d" % lines)
        ms = now_ms() - t0
        cpu = cpu_ms() - c0
        peak = rss_peak()
        got = Shell.text(before)
        ok = got == want
        out = {"ms": ms, "cpuMs": cpu, "peakAboveIdleMB": (peak - idle) / MB, "peakMB": peak / MB, "ok": ok}
        if not ok:
            out["detail"] = "pexpect: %d chars vs %d expected" % (len(got), len(want))
        return out
    finally:
        sh.close()


def w_idle(home, p):
    Shell(home).close()
    n = p["n"]
    before = rss_now()
    shells = []
    try:
        for _ in range(n):
            shells.append(Shell(home))
        time.sleep(0.3)
        after = rss_now()
        c0 = cpu_ms()
        t0 = now_ms()
        time.sleep(p.get("idleMs", 2000) / 1000)
        pct = (cpu_ms() - c0) / (now_ms() - t0) * 100
        return {"rssPerSessionMB": (after - before) / n / MB, "idleCpuPct": pct}
    finally:
        for sh in shells:
            sh.close()


def parallel_run(home, sessions, cells):
    t0 = now_ms()
    shells = [None] * sessions

    def make(i):
        shells[i] = Shell(home)

    threads = [threading.Thread(target=make, args=(i,)) for i in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spawn_ms = now_ms() - t0
    bad = []

    def drive(s):
        for i in range(cells):
            want = "s%dc%d" % (s, i)
            got = Shell.text(shells[s].run("echo " + want))
            if got != want and not bad:
                bad.append("session %d cell %d: %r" % (s, i, got))

    try:
        t1 = now_ms()
        threads = [threading.Thread(target=drive, args=(s,)) for s in range(sessions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ms = now_ms() - t1
    finally:
        for sh in shells:
            if sh is not None:
                sh.close()
    return ms, spawn_ms, bad


def w_parallel(home, p):
    ms, spawn_ms, bad = parallel_run(home, p["sessions"], p["cells"])
    out = {"ms": ms, "spawnMs": spawn_ms, "ok": not bad}
    if bad:
        out["detail"] = bad[0]
    return out


def w_scale(home, p):
    ms, _, bad = parallel_run(home, p["sessions"], p["cells"])
    out = {"ms": ms, "perCellMs": ms / (p["sessions"] * p["cells"]), "ok": not bad}
    if bad:
        out["detail"] = bad[0]
    return out


WORKLOADS = {"spawn": w_spawn, "echo": w_echo, "bigcell": w_bigcell, "idle": w_idle, "parallel": w_parallel, "scale": w_scale}


def main():
    job = json.loads(sys.argv[1])
    home = tempfile.mkdtemp(prefix="agent-tty-bench-py-")
    try:
        fn = WORKLOADS.get(job["workload"])
        out = fn(home, job["params"]) if fn else {"error": "SKIP: no pexpect version of " + job["workload"]}
    except Exception as e:  # reported, like worker.mjs does
        import traceback
        out = {"error": traceback.format_exc() or repr(e)}
    finally:
        shutil.rmtree(home, ignore_errors=True)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
