/**
 * Who may talk to the server: a Bearer token (or the HttpOnly cookie a
 * one-time login URL sets), the `Origin` of state-changing requests and
 * WebSocket upgrades, and, without a token, a loopback `Host` (no DNS
 * rebinding). The token never appears in a log line.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** The cookie the login URL sets. */
export const COOKIE_NAME = "agent_tty_token";
/** How long a one-time login code stays valid. */
const LOGIN_CODE_TTL_MS = 10 * 60_000;
/** The one route a session's own signal token opens. */
const SIGNAL_PATH = /^\/api\/sessions\/([^/]+)\/signal$/;
/** Most unused login codes kept at once. */
const LOGIN_CODES_MAX = 64;

/** Hosts that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** A random token (32 hex bytes). */
export function generateToken(): string {
  return randomBytes(24).toString("base64url");
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The host (name:port) of the request's `Host` header, lower-cased. */
function hostHeader(headers: IncomingHttpHeaders | Headers): string {
  const value = headers instanceof Headers ? headers.get("host") : headers.host;
  return (value ?? "").toLowerCase();
}

function header(headers: IncomingHttpHeaders | Headers, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What an auth check found wrong, as an HTTP status and error code. */
export interface Refusal {
  readonly status: 401 | 403;
  readonly code: "ERR_UNAUTHORIZED" | "ERR_FORBIDDEN_ORIGIN" | "ERR_FORBIDDEN_HOST";
  readonly message: string;
}

/** The server's gatekeeper. */
export class Gate {
  readonly token: string | undefined;
  readonly #codes = new Map<string, number>();

  constructor(token: string | undefined) {
    this.token = token;
  }

  /** A fresh one-time login path (`/login?code=…`); the code works once, for 10 minutes. */
  loginPath(): string {
    if (this.token === undefined) return "/";
    const now = Date.now();
    for (const [code, expires] of this.#codes) if (expires < now || this.#codes.size >= LOGIN_CODES_MAX) this.#codes.delete(code);
    const code = randomBytes(18).toString("base64url");
    this.#codes.set(code, now + LOGIN_CODE_TTL_MS);
    return `/login?code=${code}`;
  }

  /** Spends a login code (or accepts the token itself); true when it was valid. */
  redeem(code: string | undefined, token: string | undefined): boolean {
    if (this.token === undefined) return true;
    if (token !== undefined && sameSecret(token, this.token)) return true;
    if (code === undefined) return false;
    const expires = this.#codes.get(code);
    this.#codes.delete(code);
    return expires !== undefined && expires >= Date.now();
  }

  /**
   * The token a session's program gets as `AGENT_TTY_SIGNAL_TOKEN`: good
   * only for `POST /api/sessions/<name>/signal` of that session, so a
   * program in a terminal cannot drive the others with it.
   */
  signalToken(name: string): string | undefined {
    if (this.token === undefined) return undefined;
    return createHmac("sha256", this.token).update(`signal:${name}`).digest("base64url");
  }

  /** The `Set-Cookie` value that logs a browser in. */
  cookie(): string {
    return `${COOKIE_NAME}=${encodeURIComponent(this.token ?? "")}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /**
   * Checks a request: token (Bearer or cookie), then, for state-changing
   * methods and upgrades, its `Origin`; without a token, its `Host`.
   */
  check(method: string, headers: IncomingHttpHeaders | Headers, options: { upgrade?: boolean; path?: string } = {}): Refusal | null {
    const host = hostHeader(headers);
    if (this.token === undefined) {
      const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":")[0] ?? "");
      if (!isLoopbackHost(name)) {
        return {
          status: 403,
          code: "ERR_FORBIDDEN_HOST",
          message: `Host '${host}' is not a loopback name; without a token only localhost may be used`,
        };
      }
    } else {
      const auth = header(headers, "authorization");
      const bearer = auth !== undefined && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, "").trim() : undefined;
      const cookie = cookieValue(header(headers, "cookie"), COOKIE_NAME);
      const signal = method.toUpperCase() === "POST" && options.path !== undefined ? SIGNAL_PATH.exec(options.path) : null;
      const signalToken = signal === null ? undefined : this.signalToken(decodeURIComponent(signal[1] ?? ""));
      const ok =
        (bearer !== undefined && (sameSecret(bearer, this.token) || (signalToken !== undefined && sameSecret(bearer, signalToken)))) ||
        (cookie !== undefined && sameSecret(cookie, this.token));
      if (!ok)
        return {
          status: 401,
          code: "ERR_UNAUTHORIZED",
          message: "missing or wrong token: send 'Authorization: Bearer <token>' or open the login URL the server printed",
        };
    }
    const changing = options.upgrade === true || !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());
    const origin = header(headers, "origin");
    if (changing && origin !== undefined && origin !== "null") {
      let originHost: string;
      try {
        originHost = new URL(origin).host.toLowerCase();
      } catch {
        originHost = "";
      }
      if (originHost !== host) {
        return {
          status: 403,
          code: "ERR_FORBIDDEN_ORIGIN",
          message: `Origin '${origin}' is not this server; a page on another site may not drive these terminals`,
        };
      }
    } else if (changing && origin === "null") {
      return { status: 403, code: "ERR_FORBIDDEN_ORIGIN", message: "Origin 'null' is refused" };
    }
    return null;
  }
}
