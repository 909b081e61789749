// interrupt() frees a session whose prompt did not come back (issue 11: "interrupt() must be able to free a session").
import { describe, expect, it } from "vitest";
import { detectors } from "../../src/index.js";
import { spawnBash, spawnSession } from "../helpers/sessions.js";

describe("interrupt() when no known prompt comes back", () => {
  it("releases the session once the program is seen waiting for input, and says so", async () => {
    const py = await spawnSession({ command: "python3", args: ["-q"], detector: detectors.prompt(/^>>> $/) });
    // A prompt the detector does not know: the cell cannot end by itself.
    const stuck = await py.run("import sys; sys.ps1 = 'custom> '", { timeoutMs: 1_000 });
    expect(stuck.status).toBe("timeout");
    expect(py.state).toBe("timed_out");
    const released = await py.interrupt();
    expect(released).toMatchObject({ status: "interrupted", decidedBy: "interrupt" });
    expect(released?.output).toMatch(/the program is waiting for input: the session was released/);
    expect(py.state).toBe("idle");
    // The next cell reaches python (typed to a program that waits for it).
    const next = py.fire("sys.ps1 = '>>> '");
    expect((await next.result).status).toBe("done");
    expect((await py.run("print(6 * 7)")).output).toBe("42");
  });

  it("releases a program that takes its time over each Ctrl-C (as under load) once it is seen waiting for input", async () => {
    // Each Ctrl-C keeps python running for 300 ms (longer than the 250 ms between two) before it prints
    // KeyboardInterrupt and its prompt again, as a loaded machine makes it: when the grace ends, it is still
    // taking in the last one (one look then saw it busy and kept the lock).
    const slow = [
      "import signal, time",
      "def slow(signum, frame):",
      "    end = time.monotonic() + 0.3",
      "    while time.monotonic() < end: pass",
      "    raise KeyboardInterrupt",
      "signal.signal(signal.SIGINT, slow)",
    ].join("\n");
    const py = await spawnSession({ command: "python3", args: ["-q", "-i", "-c", slow], detector: detectors.prompt(/^>>> $/) });
    expect((await py.run("import sys; sys.ps1 = 'custom> '", { timeoutMs: 1_000 })).status).toBe("timeout");
    const released = await py.interrupt();
    expect(released).toMatchObject({ status: "interrupted", decidedBy: "interrupt" });
    expect(released?.output).toMatch(/the program is waiting for input: the session was released/);
    expect(py.state).toBe("idle");
    expect((await py.fire("sys.ps1 = '>>> '").result).status).toBe("done");
    expect((await py.run("print(6 * 7)")).output).toBe("42");
  });

  it("keeps the lock while the program is busy and not reading, unless force is given", async () => {
    const sh = await spawnBash();
    // Interrupted once Ctrl-C is ignored (a fixed wait could end before bash ran the trap, under load).
    const armed = sh.expect(/^armed$/m, { timeoutMs: 10_000 });
    const cell = sh.fire("trap '' INT; echo armed; sleep 6; trap - INT; echo slept");
    await armed;
    const kept = await sh.interrupt();
    expect(kept?.status).toBe("interrupted");
    expect(sh.state).toBe("timed_out");
    expect(() => sh.fire("echo refused")).toThrow(/busy/);
    const forced = await sh.interrupt({ force: true });
    expect(forced?.output).toMatch(/interrupt\(\{ force: true \}\) released the session/);
    expect(sh.state).toBe("idle");
    await cell.result;
    const after = await sh.run("echo after", { timeoutMs: 15_000 });
    expect(after.output).toContain("after");
  });

  it("refuses an interrupt option that is not a boolean", async () => {
    const sh = await spawnBash();
    await expect(sh.interrupt({ force: "yes" as unknown as boolean })).rejects.toMatchObject({ code: "ERR_INVALID_ARGUMENT" });
  });
});
