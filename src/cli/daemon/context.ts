/**
 * What the daemon's request handlers share: its sessions (one
 * {@link LiveSlot} each, over the service layer's entries), the ones still
 * starting, and the one helper that finds the session a request is about or
 * answers why there is none.
 */
import { SessionManager } from "../../index.js";
import { CappedMap } from "../../internal/capped-map.js";
import { SessionService } from "../../service/index.js";
import { errReply, NO_SESSION_FOUND, noSession, replyWithoutSessions } from "../shared/messages.js";
import type { Reply, Request } from "../shared/protocol.js";
import type { LiveSlot } from "./slot.js";

/** A request naming a session (or `null`: the only one). */
export type SessionRequest = Extract<Request, { session: string | null }>;

/** Most sessions one daemon holds. */
const MAX_SESSIONS = 64;
/** Sessions whose failure to start is remembered (for the next command's message); the oldest is forgotten beyond. */
const FAILED_CAPACITY = 256;
/** How long `k new` waits for the first prompt before answering "OK" (the session goes on starting). */
const NEW_GRACE_MS = 100;

/** Options of a {@link DaemonContext}. */
export interface DaemonContextOptions {
  /** This package's version (a client of another version may restart an idle daemon). */
  readonly version: string;
  /** Stops the daemon: sessions closed, socket removed. */
  readonly shutdown: () => Promise<void>;
  /** How long `k new` waits for the first prompt before answering "OK". @default 100 */
  readonly newGraceMs?: number;
  /** The sessions registry. @default a service over a manager of at most 64 sessions */
  readonly service?: SessionService;
}

/** The daemon's state, shared by every handler. */
export class DaemonContext {
  /** This package's version. */
  readonly version: string;
  /** How long `k new` waits for the first prompt before answering "OK". */
  readonly newGraceMs: number;
  /** The library's sessions, by name (the service layer every transport shares). */
  readonly service: SessionService;
  /** Live sessions, by name. */
  readonly slots = new Map<string, LiveSlot>();
  /** Sessions being created (`k new` answered, the program not ready yet). */
  readonly creating = new Map<string, Promise<void>>();
  /** Why a session that was answered "OK" while starting did not start after all. */
  readonly failed: Map<string, string> = new CappedMap<string, string>(FAILED_CAPACITY);
  readonly #shutdown: () => Promise<void>;

  constructor(options: DaemonContextOptions) {
    this.version = options.version;
    this.newGraceMs = options.newGraceMs ?? NEW_GRACE_MS;
    this.service = options.service ?? new SessionService({ manager: new SessionManager({ maxSessions: MAX_SESSIONS }) });
    this.#shutdown = options.shutdown;
  }

  /** Stops the daemon (sessions closed, socket removed). */
  shutdown(): Promise<void> {
    return this.#shutdown();
  }

  /** How many sessions there are, started or starting. */
  get sessionCount(): number {
    return new Set([...this.slots.keys(), ...this.creating.keys()]).size;
  }

  /**
   * The session a request is about: the named one (the client applied
   * K_SESSION), else the only one. `null` when the name is unknown,
   * `"none"` when no name was given and there is not exactly one session.
   */
  resolve(name: string | null): LiveSlot | null | "none" {
    if (name !== null) return this.slots.get(name) ?? null;
    if (this.slots.size === 1) return this.slots.values().next().value as LiveSlot;
    return "none";
  }

  /**
   * The session `request` is about (by `name`, default `request.session`),
   * or the reply its op gives when there is none — the same words the client
   * prints when no daemon runs (`k run`'s text or JSON, `k poll`'s JSON…),
   * plus why a session answered "OK" did not start. The one place a handler
   * looks a session up.
   */
  slotFor(request: SessionRequest, name: string | null = request.session): LiveSlot | Reply {
    const slot = this.resolve(name);
    if (slot === "none") return errReply(NO_SESSION_FOUND);
    if (slot !== null) return slot;
    const named = name ?? "";
    return replyWithoutSessions({ ...request, session: named }, (session) => this.noSession(session)) ?? errReply(this.noSession(named));
  }

  /**
   * `k keys [session] <key>...`, `k notify [session] <words>`: the first word
   * names the session when it is one (and more words follow); else the
   * request's `session` (K_SESSION, or the only one).
   */
  sessionInWords(session: string | null, words: readonly string[]): { name: string | null; words: readonly string[] } {
    if (words.length >= 2 && this.slots.has(words[0] ?? "")) return { name: words[0] ?? null, words: words.slice(1) };
    return { name: session, words };
  }

  /** `no session 'x'; use k new x bash`, plus why, when it was answered "OK" but failed to start. */
  noSession(name: string): string {
    const reason = this.failed.get(name);
    return reason === undefined ? noSession(name) : `${noSession(name)} (it did not start: ${reason})`;
  }

  /** Waits until the session `name` (every session when `null`) has started or failed to. Never rejects. */
  async startedSessions(name: string | null): Promise<void> {
    const pending = name !== null ? [this.creating.get(name)] : [...this.creating.values()];
    await Promise.all(pending.map((p) => p?.catch(() => undefined)));
  }

  /** Forgets a session that ended: km hears "closed", watchers and attached clients are ended. */
  drop(slot: LiveSlot): void {
    if (slot.closed) return;
    if (this.slots.get(slot.name) === slot) this.slots.delete(slot.name);
    slot.close();
  }

  /** Ends every session (daemon shutdown). */
  async closeAll(): Promise<void> {
    for (const slot of this.slots.values()) slot.killing = true;
    await this.service.closeAll();
    for (const slot of [...this.slots.values()]) this.drop(slot);
  }
}
