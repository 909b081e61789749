/**
 * The ops about the daemon and its sessions: `ping`, `shutdown`, `k new`,
 * `k kill`, `k ls`, `k status`.
 */
import { detectors, type FrameDetector } from "../../../index.js";
import { settleWithin } from "../../../internal/settle-within.js";
import { executableProblem } from "../../../pty/environment.js";
import { errorMessage, errReply, textReply } from "../../shared/messages.js";
import { PROTOCOL_VERSION, type Reply } from "../../shared/protocol.js";
import { pyRepr, type PyValue } from "../../shared/python.js";
import { planCommand } from "../command-line.js";
import type { DaemonContext } from "../context.js";
import type { OpHandler, RequestOf } from "../dispatch.js";
import { DEFAULT_COLS, DEFAULT_ROWS, LiveSlot } from "../slot.js";
import { NOISE_RUN } from "../watch-log.js";

/** How long a session's slot outlives its program's exit, so that the cell it ended settles ("exited") first. */
const EXIT_SETTLE_MS = 50;
/** How long a session may take to show its first prompt (`k new` answered before; a heavy rc file on a loaded machine is slow). */
const READY_TIMEOUT_MS = 30_000;

/** `text` matched literally in a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `agent-tty daemon status`: who the daemon is. */
export const ping: OpHandler<"ping"> = {
  waitsFor: "none",
  handle: (ctx) => ({
    ok: true,
    exit: 0,
    result: {
      pid: process.pid,
      version: ctx.version,
      protocol: PROTOCOL_VERSION,
      sessions: ctx.sessionCount,
    },
  }),
};

/** `agent-tty daemon stop`: answers, ends every session, then closes the connection. */
export const shutdown: OpHandler<"shutdown"> = {
  waitsFor: "none",
  async handle(ctx, channel) {
    channel.send({ ok: true, exit: 0, stdout: "OK daemon stopping\n" });
    await ctx.shutdown();
    channel.end();
    return undefined;
  },
};

/** `k new`: starts a session; answers once it shows its first prompt or after a short grace (it goes on starting). */
export const newSession: OpHandler<"new"> = {
  waitsFor: "none",
  handle: (ctx, _channel, request) => create(ctx, request),
};

async function create(ctx: DaemonContext, req: RequestOf<"new">): Promise<Reply> {
  const name = req.session;
  if (req.version !== undefined && req.version !== ctx.version && ctx.slots.size === 0 && ctx.creating.size === 0) {
    console.error(`${new Date().toISOString()} a client of version ${req.version} came: stepping down for it`);
    void ctx.shutdown();
    return { ok: false, exit: 1, restart: true, stdout: "" };
  }
  if (ctx.slots.has(name)) return textReply(`OK ${name} (alive)`);
  const pending = ctx.creating.get(name);
  if (pending) {
    await pending.catch(() => undefined);
    return ctx.slots.has(name) ? textReply(`OK ${name} (alive)`) : create(ctx, req);
  }
  if (req.hook !== null) {
    const problem = checkHook(req.hook);
    if (problem) return errReply(problem);
  }
  ctx.failed.delete(name);
  const creation = start(ctx, req);
  ctx.creating.set(name, creation);
  creation
    .catch((error: unknown) => {
      ctx.failed.set(name, errorMessage(error));
      console.error(`${new Date().toISOString()} session '${name}' did not start: ${errorMessage(error)}`);
    })
    .finally(() => ctx.creating.delete(name));
  // A program that cannot start fails at once; one that is slow to show its
  // first prompt (a heavy .bashrc) is still starting: answer now, and let the
  // next command on it wait until it is ready.
  const early = await settleWithin(
    creation.then(
      () => "ready" as const,
      (error: unknown) => ({ error }),
    ),
    ctx.newGraceMs,
    "starting" as const,
  );
  if (typeof early === "object") return errReply(`create failed: ${errorMessage(early.error)}`);
  if (req.hook !== null) return textReply(`OK ${name} prompt=${pyRepr(req.hook)}`);
  if (req.prompt !== null) return textReply(`OK ${name} prompt=${pyRepr(req.prompt)}`);
  return textReply(`OK ${name}`);
}

/** Starts the session's program and its slot; resolves once it is ready. */
async function start(ctx: DaemonContext, req: RequestOf<"new">): Promise<void> {
  const line = req.command ?? "bash";
  const plan = planCommand(line);
  let command: string;
  let args: string[];
  let detector: "auto" | FrameDetector = "auto";
  if (plan.argv === null) {
    // Shell syntax: let sh start it; sh's own prompt never shows, so frame by repeated Enters. As
    // many as `k watch` takes for frame noise, so its view shows the repeated prompt once.
    command = "/bin/sh";
    args = ["-c", `exec ${line}`];
    detector = detectors.repeatEnter({ count: NOISE_RUN });
  } else {
    [command = "bash", ...args] = plan.argv;
  }
  if (req.hook !== null) detector = detectors.hook(req.hook);
  else if (req.prompt !== null) detector = detectors.prompt(new RegExp(`^[ \\t]*${escapeRegExp(req.prompt.trim())}[ \\t]*$`, "m"));
  const entry = await ctx.service.create({
    name: req.session,
    commandLine: line,
    command,
    args,
    cwd: req.cwd,
    env: { ...req.env, ...plan.env },
    cols: DEFAULT_COLS,
    rows: DEFAULT_ROWS,
    readyTimeoutMs: READY_TIMEOUT_MS,
    detector,
    ...(req.label !== null ? { label: req.label } : {}),
    ...(req.description !== null ? { description: req.description } : {}),
  });
  const sh = entry.session;
  const slot = new LiveSlot(entry, line, DEFAULT_COLS, DEFAULT_ROWS);
  ctx.slots.set(req.session, slot);
  sh.on("exit", () => {
    // Let the active cell settle (it reports "exited") before the session disappears.
    setTimeout(() => {
      if (ctx.slots.get(slot.name) === slot) {
        ctx.drop(slot);
        ctx.service.close(slot.name).catch(() => undefined);
      }
    }, EXIT_SETTLE_MS);
  });
  void (async () => {
    try {
      for await (const chunk of sh.output()) slot.log.pushText(chunk);
    } catch {
      /* the session closed */
    }
    slot.log.flush();
  })();
}

/** The original's hook checks: the path must be a readable, executable file. */
export function checkHook(path: string): string | null {
  switch (executableProblem(path, { readable: true })) {
    case "missing":
      return `hook not found: ${path}`;
    case "unreadable":
      return `hook not readable: ${path}`;
    case "not-executable":
      return `hook not executable: ${path}`;
    default:
      return null;
  }
}

/** `k kill`: ends the session (OK also when there is none). */
export const kill: OpHandler<"kill"> = {
  waitsFor: "named",
  async handle(ctx, _channel, req) {
    const name = req.session;
    const slot = ctx.slots.get(name);
    if (slot !== undefined) {
      slot.killing = true;
      try {
        await ctx.service.close(name);
      } catch {
        await slot.sh.close().catch(() => undefined);
      }
      ctx.drop(slot);
    }
    return textReply(`OK killed ${name}`);
  },
};

/** `k ls`: every session with its state, running cell, command and label. */
export const ls: OpHandler<"ls"> = {
  waitsFor: "all",
  handle(ctx) {
    if (ctx.slots.size === 0) return textReply("no sessions", 0, []);
    const rows: string[] = [];
    const result: Record<string, PyValue>[] = [];
    for (const slot of ctx.slots.values()) {
      const { state, cell } = slot.state();
      const shown = state === "running" && slot.sh.activity === "awaiting_input" ? "awaiting_input" : state;
      const label = slot.sh.label;
      let row = `${slot.name} state=${shown}`;
      if (cell !== undefined) row += ` cell=${cell}`;
      row += ` cmd=${pyRepr(slot.command)}`;
      if (label) row += ` label=${pyRepr(label)}`;
      if (slot.attached > 0) row += " attached=human";
      rows.push(row);
      result.push({
        name: slot.name,
        state: shown,
        cell: cell ?? null,
        command: slot.command,
        label: label ?? null,
        pid: slot.sh.pid ?? null,
        attached: slot.attached > 0,
      });
    }
    return { ok: true, exit: 0, stdout: `${rows.join("\n")}\n`, result };
  },
};

/** `k status`: the session's state and the next command to use. */
export const status: OpHandler<"status"> = {
  waitsFor: "named",
  handle(ctx, _channel, req) {
    const slot = ctx.slotFor(req);
    if (!(slot instanceof LiveSlot)) return slot;
    const s = slot.name;
    const { state, cell } = slot.state();
    const head = `OK ${s} pipe=ok state=${state}`;
    switch (state) {
      case "idle":
        return textReply(`${head} next='k run ${s} <code>'`);
      case "done":
        return textReply(`${head} cell=${cell} next='k poll ${s} ${cell}'`);
      case "timeout":
        return textReply(`${head} cell=${cell} next='k int ${s} or k kill ${s}'`);
      default:
        return textReply(`${head} cell=${cell} next='k poll ${s} ${cell} or k int ${s}'`);
    }
  },
};
