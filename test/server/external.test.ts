import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { detectors, SessionManager } from "../../src/index.js";
import { NeedsRecoveryError, SessionService } from "../../src/service/index.js";
import { spawnSession, trackManager } from "../helpers/sessions.js";

const FAKE_AGENT = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));

describe("detectors.external()", () => {
  it("ends a TUI agent's turn when session.signal('stop') comes, and the child knows its session", async () => {
    const sh = await spawnSession({
      command: process.execPath,
      args: [FAKE_AGENT],
      name: "agent1",
      detector: detectors.external(),
      cols: 100,
      rows: 20,
    });
    expect(sh.screen()).toContain("session=agent1");
    const cell = sh.fire("hello there", { timeoutMs: 10_000 });
    await sh.expect(/answer: HELLO THERE/, { timeoutMs: 5_000 });
    expect(cell.status).toBe("running");
    expect(sh.signal("stop")).toBe(true);
    const result = await cell.result;
    expect(result.status).toBe("done");
    expect(result.decidedBy).toBe("external");
    expect(result.output).toContain("answer: HELLO THERE");
  });

  it("rejects an unknown signal event with ERR_INVALID_ARGUMENT", async () => {
    const sh = await spawnSession({ command: process.execPath, args: [FAKE_AGENT], detector: detectors.external() });
    expect(() => sh.signal("finish" as "stop")).toThrow(expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }));
  });

  it("a turn that never signals times out and leaves the session needing recovery until interrupted", async () => {
    const service = new SessionService({ manager: trackManager(new SessionManager()) });
    const entry = await service.create({ name: "stuck", command: process.execPath, args: [FAKE_AGENT], detector: detectors.external() });
    const turn = await entry.ask("never answer", { timeoutMs: 1_500 });
    expect(turn.result.status).toBe("timeout");
    expect(entry.needsRecovery).toEqual({ cellId: turn.result.cellId });
    expect(() => entry.fire("again")).toThrow(NeedsRecoveryError);
    await entry.interrupt();
    expect(entry.needsRecovery).toBeNull();
    const next = entry.fire("second try", { timeoutMs: 10_000 });
    await entry.session.expect(/answer: SECOND TRY/, { timeoutMs: 5_000 });
    entry.signal("stop", { note: "from test" });
    expect((await next.result).status).toBe("done");
    expect(entry.signals.at(-1)).toMatchObject({ event: "stop", taken: true, payload: { note: "from test" } });
  });
});
