import { AgentTtyError, describeValue, invalidArgument } from "./errors.js";
import { assertSessionName, type SessionOptions } from "./options.js";
import { optionalPositive, optionsObject } from "./validate.js";
import { Session, type ActiveCell, type SessionActivity, type SessionState } from "./session.js";

/** Options of a {@link SessionManager}. */
export interface SessionManagerOptions {
  /**
   * Most sessions open at once; `create()` beyond it rejects.
   * @default 64
   */
  readonly maxSessions?: number;
}

/** One row of {@link SessionManager.list}. */
export interface SessionInfo {
  readonly name: string;
  readonly label: string | undefined;
  readonly description: string | undefined;
  readonly command: string;
  readonly pid: number | undefined;
  readonly state: SessionState;
  readonly activity: SessionActivity;
  readonly activeCell: ActiveCell | null;
  readonly createdAt: Date;
}

/**
 * Named sessions, with what each is for: create, find, list, close them all.
 *
 * @example
 * ```ts
 * const mgr = new SessionManager({ maxSessions: 8 });
 * const api = await mgr.create("api", { command: "bash", label: "api tests" });
 * mgr.list(); // [{ name: "api", label: "api tests", state: "idle", … }]
 * await mgr.closeAll();
 * ```
 */
export class SessionManager {
  readonly #maxSessions: number;
  readonly #sessions = new Map<string, { session: Session; createdAt: Date }>();
  readonly #starting = new Set<string>();
  /** Sessions whose program exited by itself, being closed (their leftover jobs ended). */
  readonly #closing = new Set<Promise<void>>();

  constructor(options: SessionManagerOptions = {}) {
    const given = optionsObject(options, ["maxSessions"], "the manager options");
    this.#maxSessions = optionalPositive(given["maxSessions"], "maxSessions", { integer: true }) ?? 64;
  }

  /**
   * Spawns a session under `name`.
   * @throws {AgentTtyError} `ERR_INVALID_ARGUMENT` for a bad name, `ERR_SESSION_EXISTS`, `ERR_TOO_MANY_SESSIONS`, and whatever `Session.spawn` throws.
   */
  async create(name: string, options: Omit<SessionOptions, "name"> = {}): Promise<Session> {
    assertSessionName(name);
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      throw invalidArgument(`Expected the session options to be an object, got ${describeValue(options)}`);
    }
    if ("name" in options)
      throw invalidArgument("Expected the session options without `name`: the session is named by create()'s first argument");
    if (this.#sessions.has(name) || this.#starting.has(name)) {
      throw new AgentTtyError("ERR_SESSION_EXISTS", `a session named '${name}' already exists; pick another name or close it first`);
    }
    if (this.#sessions.size + this.#starting.size >= this.#maxSessions) {
      throw new AgentTtyError(
        "ERR_TOO_MANY_SESSIONS",
        `cannot create '${name}': ${this.#maxSessions} sessions are open (maxSessions); close one first`,
      );
    }
    this.#starting.add(name);
    try {
      const session = await Session.spawn({ ...options, name });
      this.#sessions.set(name, { session, createdAt: new Date() });
      session.once("exit", () => {
        if (this.#sessions.get(name)?.session === session) this.#sessions.delete(name);
        // The program is gone, but jobs it started may outlive it: end them with the session.
        const closing = session.close();
        this.#closing.add(closing);
        void closing.finally(() => this.#closing.delete(closing));
      });
      return session;
    } finally {
      this.#starting.delete(name);
    }
  }

  /** The session named `name`, if open. */
  get(name: string): Session | undefined {
    assertSessionName(name);
    return this.#sessions.get(name)?.session;
  }

  /** Every open session, oldest first. */
  list(): SessionInfo[] {
    return [...this.#sessions.entries()].map(([name, { session, createdAt }]) => ({
      name,
      label: session.label,
      description: session.description,
      command: session.command,
      pid: session.pid,
      state: session.state,
      activity: session.activity,
      activeCell: session.activeCell,
      createdAt,
    }));
  }

  /** Closes the session named `name`; false if there was none. */
  async close(name: string): Promise<boolean> {
    assertSessionName(name);
    const entry = this.#sessions.get(name);
    if (entry === undefined) return false;
    this.#sessions.delete(name);
    await entry.session.close();
    return true;
  }

  /** Closes every session; no process is left behind. */
  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions.values()].map((entry) => entry.session);
    this.#sessions.clear();
    await Promise.all([...sessions.map((session) => session.close()), ...this.#closing]);
  }

  /** How many sessions are open. */
  get size(): number {
    return this.#sessions.size;
  }
}
