/**
 * The daemon's dispatch table and its one "find the session or reply"
 * helper (src/cli/daemon/dispatch.ts, context.ts), without a socket or a
 * terminal: a request is routed to its op's handler after the protocol
 * check, waits for the sessions it may be about, and a session that is not
 * there is answered in the same words the client prints with no daemon.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Channel } from "../../src/cli/daemon/connection.js";
import { DaemonContext } from "../../src/cli/daemon/context.js";
import { dispatch, HANDLERS, type HandlerTable, type OpHandler } from "../../src/cli/daemon/dispatch.js";
import { NO_SESSION_FOUND, noSession, replyWithoutSessions, textReply } from "../../src/cli/shared/messages.js";
import { PROTOCOL_VERSION, type AttachInput, type Op, type Reply, type Request, type StreamLine } from "../../src/cli/shared/protocol.js";

/** A channel that records what the daemon sends. */
class RecordingChannel implements Channel {
  readonly sent: (Reply | StreamLine)[] = [];
  readonly closeHandlers = new Set<() => void>();
  onInput: ((input: AttachInput) => void) | null = null;
  ended = false;
  last: Reply | StreamLine | undefined;

  get closed(): boolean {
    return this.ended;
  }

  send(value: Reply | StreamLine): void {
    this.sent.push(value);
  }

  end(value?: Reply | StreamLine): void {
    this.ended = true;
    this.last = value;
  }

  /** The reply that ended the connection. */
  get reply(): Reply {
    expect(this.ended).toBe(true);
    return this.last as Reply;
  }
}

function context(): DaemonContext {
  return new DaemonContext({ version: "0.0.0-test", shutdown: async () => undefined });
}

/** A table whose every handler answers its op's name, recording the requests it got. */
function recordingTable(waitsFor: OpHandler<Op>["waitsFor"] = "none"): { table: HandlerTable; seen: Request[] } {
  const seen: Request[] = [];
  const entries = (Object.keys(HANDLERS) as Op[]).map((op) => [
    op,
    {
      waitsFor,
      handle: (_ctx: DaemonContext, _channel: Channel, request: Request) => {
        seen.push(request);
        return textReply(`handled ${op}`);
      },
    },
  ]);
  return { table: Object.fromEntries(entries) as HandlerTable, seen };
}

/** Every request that names a session, for the session "ghost". */
const GHOST_REQUESTS: Request[] = [
  { op: "run", session: "ghost", code: "echo hi", timeoutMs: 1000, json: false },
  { op: "run", session: "ghost", code: "echo hi", timeoutMs: 1000, json: true },
  { op: "fire", session: "ghost", code: "echo hi", timeoutMs: 1000 },
  { op: "poll", session: "ghost", cellId: null },
  { op: "int", session: "ghost" },
  { op: "status", session: "ghost" },
  { op: "history", session: "ghost", n: 3, color: false },
  { op: "notify", session: "ghost", words: ["hello"], from: "test" },
  { op: "screen", session: "ghost" },
  { op: "keys", session: "ghost", words: ["enter"] },
  { op: "type", session: "ghost", text: "x" },
  { op: "expect", session: "ghost", words: ["\\$ $"], timeoutMs: 1000, json: false },
  { op: "watch", session: "ghost", color: false },
  { op: "attach", session: "ghost", cols: 80, rows: 24 },
];

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the dispatch table", () => {
  it("has a handler for every op, and routes each request to its own op's handler", async () => {
    const { table, seen } = recordingTable();
    for (const op of Object.keys(HANDLERS) as Op[]) {
      const channel = new RecordingChannel();
      await dispatch(context(), channel, { v: PROTOCOL_VERSION, op, session: null }, table);
      expect(channel.reply.stdout).toBe(`handled ${op}\n`);
    }
    expect(seen.map((r) => r.op)).toEqual(Object.keys(HANDLERS));
    expect(Object.keys(HANDLERS).sort()).toEqual(
      [
        "attach",
        "expect",
        "fire",
        "history",
        "int",
        "keys",
        "kill",
        "ls",
        "monitor",
        "new",
        "notify",
        "ping",
        "poll",
        "run",
        "screen",
        "shutdown",
        "status",
        "type",
        "watch",
      ].sort(),
    );
  });

  it("answers a client of another protocol version with the fix, and runs nothing", async () => {
    const { table, seen } = recordingTable();
    const channel = new RecordingChannel();
    await dispatch(context(), channel, { v: PROTOCOL_VERSION + 1, op: "run", session: null, code: "rm -rf /tmp/x" }, table);
    expect(channel.reply).toMatchObject({ ok: false, exit: 1 });
    expect(channel.reply.stdout).toContain(
      `speaks protocol ${PROTOCOL_VERSION}, the client ${PROTOCOL_VERSION + 1}; stop it with 'agent-tty daemon stop'`,
    );
    expect(seen).toEqual([]);
  });

  it("answers an unknown op, and a request that is not an object, with an error (never throws)", async () => {
    const { table, seen } = recordingTable();
    const unknown = new RecordingChannel();
    await dispatch(context(), unknown, { v: PROTOCOL_VERSION, op: "frobnicate" }, table);
    expect(unknown.reply.stdout).toBe("ERR unknown op 'frobnicate'\n");
    const inherited = new RecordingChannel();
    await dispatch(context(), inherited, { v: PROTOCOL_VERSION, op: "toString" }, table);
    expect(inherited.reply.stdout).toBe("ERR unknown op 'toString'\n");
    for (const value of [null, "ping", 42, []]) {
      const channel = new RecordingChannel();
      await dispatch(context(), channel, value, table);
      expect(channel.reply).toMatchObject({ ok: false, exit: 1 });
    }
    expect(seen).toEqual([]);
  });

  it("answers 'internal error' when a handler throws or rejects, and logs it", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { table } = recordingTable();
    const throwing: HandlerTable = {
      ...table,
      status: {
        waitsFor: "none",
        handle: () => {
          throw new Error("boom");
        },
      },
      screen: { waitsFor: "none", handle: () => Promise.reject(new Error("late boom")) },
    };
    const a = new RecordingChannel();
    await expect(dispatch(context(), a, { v: PROTOCOL_VERSION, op: "status", session: null }, throwing)).resolves.toBeUndefined();
    expect(a.reply.stdout).toBe("ERR internal error: boom\n");
    const b = new RecordingChannel();
    await dispatch(context(), b, { v: PROTOCOL_VERSION, op: "screen", session: null }, throwing);
    expect(b.reply.stdout).toBe("ERR internal error: late boom\n");
    expect(logged).toHaveBeenCalledTimes(2);
  });

  it("leaves the connection open when a streaming handler answers through the channel", async () => {
    const { table } = recordingTable();
    const streaming: HandlerTable = {
      ...table,
      watch: {
        waitsFor: "none",
        handle: (_ctx, channel) => {
          channel.send({ line: "first" });
          return undefined;
        },
      },
    };
    const channel = new RecordingChannel();
    await dispatch(context(), channel, { v: PROTOCOL_VERSION, op: "watch", session: null, color: false }, streaming);
    expect(channel.ended).toBe(false);
    expect(channel.sent).toEqual([{ line: "first" }]);
  });

  it("waits for the session a request names to finish starting (or failing) before handling it", async () => {
    const ctx = context();
    let started: () => void = () => undefined;
    ctx.creating.set(
      "s",
      new Promise<void>((resolve) => {
        started = resolve;
      }),
    );
    ctx.creating.set("other", Promise.reject(new Error("did not start")));
    const { table, seen } = recordingTable("named");
    const channel = new RecordingChannel();
    const done = dispatch(ctx, channel, { v: PROTOCOL_VERSION, op: "status", session: "s" }, table);
    // A request about another session does not wait for "s", and a failed start does not hold it.
    await dispatch(ctx, new RecordingChannel(), { v: PROTOCOL_VERSION, op: "status", session: "other" }, table);
    expect(seen.map((r) => ("session" in r ? r.session : null))).toEqual(["other"]);
    started();
    await done;
    expect(seen.map((r) => ("session" in r ? r.session : null))).toEqual(["other", "s"]);
    expect(channel.reply.stdout).toBe("handled status\n");
  });

  it("a request that names no session waits for every session still starting", async () => {
    const ctx = context();
    let started: () => void = () => undefined;
    ctx.creating.set(
      "s",
      new Promise<void>((resolve) => {
        started = resolve;
      }),
    );
    const { table, seen } = recordingTable("named");
    const done = dispatch(ctx, new RecordingChannel(), { v: PROTOCOL_VERSION, op: "status", session: null }, table);
    // Both requests below name no session but wait for none: they are handled while "s" is starting.
    const { table: eager, seen: eagerSeen } = recordingTable("none");
    await dispatch(ctx, new RecordingChannel(), { v: PROTOCOL_VERSION, op: "ls" }, eager);
    expect(eagerSeen).toHaveLength(1);
    expect(seen).toEqual([]);
    started();
    await done;
    expect(seen).toHaveLength(1);
  });
});

describe("find the session or reply", () => {
  it("answers a missing session in the same words the client prints when no daemon runs", async () => {
    for (const request of GHOST_REQUESTS) {
      const channel = new RecordingChannel();
      await dispatch(context(), channel, { v: PROTOCOL_VERSION, ...request });
      const expected = replyWithoutSessions(request);
      expect(expected, request.op).not.toBeNull();
      expect({ op: request.op, stdout: channel.reply.stdout, exit: channel.reply.exit }).toEqual({
        op: request.op,
        stdout: expected?.stdout,
        exit: expected?.exit,
      });
    }
  });

  it("says why a session answered 'OK' did not start", async () => {
    for (const request of GHOST_REQUESTS) {
      const ctx = context();
      ctx.failed.set("ghost", "no such program");
      const channel = new RecordingChannel();
      await dispatch(ctx, channel, { v: PROTOCOL_VERSION, ...request });
      expect(channel.reply.stdout, request.op).toContain(`${noSession("ghost")} (it did not start: no such program)`);
      expect(channel.reply.exit).toBe(1);
    }
  });

  it("with no session named and none to choose, says no session was found", async () => {
    for (const request of GHOST_REQUESTS) {
      if (request.op === "keys" || request.op === "notify" || request.op === "expect") continue; // their words may name it
      const channel = new RecordingChannel();
      await dispatch(context(), channel, { v: PROTOCOL_VERSION, ...request, session: null });
      expect(channel.reply.stdout, request.op).toBe(`ERR ${NO_SESSION_FOUND}\n`);
    }
  });

  it("answers km's monitor of a missing session with a km error line", async () => {
    const channel = new RecordingChannel();
    await dispatch(context(), channel, { v: PROTOCOL_VERSION, op: "monitor", session: "ghost", cellId: null, once: true });
    expect(channel.reply).toMatchObject({ ok: false, exit: 1 });
    expect(JSON.parse(channel.reply.stdout ?? "")).toMatchObject({ session: "ghost", status: "error", message: "no session 'ghost'" });
  });

  it("k kill and k ls answer without a session", async () => {
    const kill = new RecordingChannel();
    await dispatch(context(), kill, { v: PROTOCOL_VERSION, op: "kill", session: "ghost" });
    expect(kill.reply.stdout).toBe("OK killed ghost\n");
    const ls = new RecordingChannel();
    await dispatch(context(), ls, { v: PROTOCOL_VERSION, op: "ls" });
    expect(ls.reply).toMatchObject({ ok: true, exit: 0, stdout: "no sessions\n", result: [] });
  });
});
