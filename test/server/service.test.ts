import { describe, expect, it } from "vitest";
import { AgentTtyError, SessionBusyError, SessionManager } from "../../src/index.js";
import {
  errorBody,
  httpStatus,
  HumanControlError,
  NeedsRecoveryError,
  NoSessionError,
  SessionService,
  type ServiceEvent,
} from "../../src/service/index.js";
import { trackManager } from "../helpers/sessions.js";
import { waitFor } from "../helpers/wait-for.js";

const BASH = { command: "bash", args: ["--norc", "--noprofile"] };

describe("service layer", () => {
  it("maps every error to one HTTP status and one JSON shape", () => {
    expect(httpStatus(new AgentTtyError("ERR_INVALID_ARGUMENT", "x"))).toBe(400);
    expect(httpStatus(new NoSessionError("a"))).toBe(404);
    expect(httpStatus(new AgentTtyError("ERR_UNKNOWN_CELL", "x"))).toBe(404);
    expect(httpStatus(new SessionBusyError("a", "c1", false))).toBe(409);
    expect(httpStatus(new HumanControlError("a"))).toBe(409);
    expect(httpStatus(new NeedsRecoveryError("a", "c2"))).toBe(409);
    expect(httpStatus(new AgentTtyError("ERR_TOO_MANY_SESSIONS", "x"))).toBe(503);
    expect(httpStatus(new Error("boom"))).toBe(500);
    expect(errorBody(new SessionBusyError("a", "c1", false))).toEqual({
      error: { code: "ERR_SESSION_BUSY", message: expect.any(String), activeCellId: "c1" },
    });
    expect(errorBody(new NeedsRecoveryError("a", "c2")).error).toMatchObject({ code: "ERR_NEEDS_RECOVERY", session: "a", cellId: "c2" });
    expect(errorBody(new Error("secret detail"))).toEqual({
      error: { code: "ERR_INTERNAL", message: "internal error; see the server's log" },
    });
  });

  it("a person's submitted lines (backspace, arrows, Ctrl-U applied) land in history(); agent cells wait until they give back", async () => {
    const service = new SessionService({ manager: trackManager(new SessionManager()) });
    const events: ServiceEvent[] = [];
    service.events.on("event", (event) => events.push(event));
    const entry = await service.create({ name: "shared", ...BASH });
    await entry.run("echo agent-first");
    entry.take("p1", "web");
    expect(() => entry.fire("echo agent")).toThrow(HumanControlError);
    // Any surface on the same session (the tool set, code holding the Session) is refused too, and nothing is typed.
    await expect(entry.session.run("echo from-another-surface")).rejects.toMatchObject({ code: "ERR_HUMAN_CONTROL" });
    expect(entry.session.heldByHuman).toBe(true);
    expect(entry.humanWrite("someone-else", "echo intruder\r")).toBe(false);
    entry.humanWrite("p1", "echo wrongX\x15echo per");
    entry.humanWrite("p1", "sonX\x7f-\x1b[D\x1b[C$((1+1))\r");
    await waitFor(() => entry.session.history(10).includes("person-2\n") || entry.session.history(10).endsWith("person-2"), {
      message: "the output of the person's command",
    });
    const history = entry.session.history(10);
    expect(history).toContain("echo person-$((1+1))");
    expect(history).not.toContain("wrongX");
    expect(history).not.toContain("intruder");
    expect(history).not.toContain("from-another-surface");
    expect(entry.release("p1")).toBe(true);
    expect(entry.session.heldByHuman).toBe(false);
    expect((await entry.run("echo agent-again")).output).toBe("agent-again");
    expect(events.filter((e) => e.type === "control").map((e) => (e.type === "control" ? (e.holder?.via ?? null) : undefined))).toEqual([
      "web",
      null,
    ]);
    expect(entry.cells.map((c) => [c.code, c.status, c.exitCode])).toEqual([
      ["echo agent-first", "done", 0],
      ["echo agent-again", "done", 0],
    ]);
    expect(() => service.get("nobody")).toThrow(NoSessionError);
  });
});
