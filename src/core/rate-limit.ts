import { RateLimitedError } from "./errors.ts";
import type { Principal } from "./principal.ts";

/**
 * Fixed-window counters per (rule, key), in memory: a restart starts new windows, by design
 * (docs/decisions/rate-limits.md, "A restart starts new windows"). The key is the caller's organization when
 * authenticated and the client IP otherwise; requests with garbage credentials count as
 * unauthenticated, so they share the IP's bucket instead of minting new ones. Besides the
 * categories of docs/interfaces.md §8, one per-IP floor (ANONYMOUS_FLOOR) counts every unauthenticated
 * request on every path.
 *
 * A dedicated library was weighed: elysia-rate-limit keeps one limit per plugin instance and keys
 * before our authentication runs, so expressing those categories (several rules per
 * request, per-org vs per-IP keys) took more glue than this file.
 */
export interface RateRule {
  name: string;
  limit: number;
  windowSec: number;
  /**
   * "caller": per person for a signed-in web session (each person of an organization has the
   * organization's figures to themselves), per organization for an API key (as docs/interfaces.md §8
   * says), per IP otherwise — docs/decisions/rate-limits.md, "Who shares a bucket".
   * "user": per user when authenticated, per IP otherwise. "ip": always per IP.
   */
  keyBy: "caller" | "user" | "ip";
  /** "anonymous": counts only requests without a verified caller (the per-IP floor). Default: every request. */
  callers?: "anonymous";
  /**
   * Only a successful answer (2xx) uses the allowance: the request takes its place while it runs
   * (so two at once cannot both pass), and gives it back when it ends in an error (a 404, a
   * refusal, a failure). For the once-a-day exports, where a mistyped handle must not cost the day.
   */
  successOnly?: boolean;
  /**
   * `credentialsPresented`: the request carried an Authorization header, whether or not it verified.
   * `sessionProven`: the caller holds a session: a verified session token, or a refresh cookie
   * naming a stored refresh token (docs/decisions/rate-limits.md, "Using a session is not guessing").
   */
  matches(method: string, path: string, credentialsPresented?: boolean, sessionProven?: boolean): boolean;
}

const isRead = (m: string) => m === "GET" || m === "HEAD";

/**
 * Reads of one's own account under /api/auth/ (who am I, my sessions, my sign-in methods, which
 * providers exist): every boot of the app makes them, so they are reads, not credential
 * endpoints; an anonymous caller still meets the per-IP floor on them.
 */
const AUTH_READS = new Set(["/api/auth/me", "/api/auth/sessions", "/api/auth/config", "/api/auth/providers", "/api/auth/methods", "/api/auth/webauthn/credentials"]);
const isAuthRead = (m: string, p: string) => isRead(m) && AUTH_READS.has(p.replace(/\/+$/, ""));

/**
 * Renewing a session and asking for the WebSocket cookie: every load of the app makes both, so for
 * a caller who holds the session they are uses of it, not guesses at a credential.
 */
const isSessionUse = (m: string, p: string) => m === "POST" && (p === "/api/auth/refresh" || p === "/api/auth/ws-token");

/** The limits table of docs/interfaces.md §8. Paths are matched as the router sees them (raw, before any decoding). */
export const RATE_RULES: RateRule[] = [
  { name: "register", limit: 5, windowSec: 3600, keyBy: "ip", matches: (m, p) => m === "POST" && p === "/api/auth/register" },
  {
    name: "password_reset",
    limit: 5,
    windowSec: 900,
    keyBy: "ip",
    matches: (m, p) => m === "POST" && (p === "/api/auth/forgot-password" || p === "/api/auth/reset-password"),
  },
  // The endpoints that take credentials or mint tokens: per account when signed in, per IP otherwise.
  // Deleting one's account takes the password too, so guessing it there is held to the same pace.
  {
    name: "auth",
    limit: 20,
    windowSec: 60,
    keyBy: "user",
    matches: (m, p, _c, session = false) =>
      (p.startsWith("/api/auth/") && !isAuthRead(m, p) && !(session && isSessionUse(m, p))) || (m === "DELETE" && p === "/api/v1/users/me"),
  },
  // A session's own renewals, per account: no person reaches 300 loads of the app a minute, and a
  // stolen refresh token gains nothing by the pace (a replay ends the session: reuse detection).
  { name: "session_use", limit: 300, windowSec: 60, keyBy: "user", matches: (m, p, _c, session = false) => session && isSessionUse(m, p) },
  // MCP clients' OAuth calls, per IP: registration stores a row for anyone who asks; an
  // authorization request may make the server fetch a client's metadata document; the token
  // endpoint takes codes and refresh tokens (each a one-use secret, so the pace only bounds the work).
  { name: "oauth_register", limit: 20, windowSec: 3600, keyBy: "ip", matches: (m, p) => m === "POST" && p === "/oauth/register" },
  {
    name: "oauth",
    limit: 60,
    windowSec: 60,
    keyBy: "ip",
    matches: (m, p) => (m === "POST" && (p === "/oauth/token" || p === "/oauth/revoke")) || (m === "GET" && p === "/oauth/authorize"),
  },
  { name: "content_read", limit: 300, windowSec: 60, keyBy: "caller", matches: (m, p) => isRead(m) && p.startsWith("/api/v1/content/") },
  { name: "content_write", limit: 60, windowSec: 60, keyBy: "caller", matches: (m, p) => !isRead(m) && m !== "OPTIONS" && p.startsWith("/api/v1/content/") },
  {
    name: "search",
    limit: 60,
    windowSec: 60,
    keyBy: "caller",
    matches: (m, p) => isRead(m) && /^\/api\/v1\/workspaces\/[^/]+\/search\/?$/.test(p),
  },
  // Not one of the original categories: each call costs a model completion (docs/decisions/mcp.md).
  { name: "ai_assist", limit: 30, windowSec: 60, keyBy: "caller", matches: (m, p) => m === "POST" && p === "/api/ai/assist" },
  { name: "git_webhook", limit: 30, windowSec: 60, keyBy: "ip", matches: (m, p) => m === "POST" && p.startsWith("/api/git/webhook/") },
  // A site visitor's consent answer is part of reading the published site, and shares its allowance.
  {
    name: "published",
    limit: 600,
    windowSec: 60,
    keyBy: "ip",
    matches: (_m, p) => p === "/p" || p.startsWith("/p/") || p === "/api/analytics/consent",
  },
  // A personal data export is each person's own right: one member's export must not deny another's
  // for a day, so it is counted per user; the organization export is counted per organization.
  // Only an export that was made counts: an unknown handle, a refusal or a failure costs nothing.
  { name: "data_export", limit: 1, windowSec: 86400, keyBy: "user", successOnly: true, matches: (m, p) => isRead(m) && p === "/api/v1/users/me/export" },
  { name: "org_export", limit: 1, windowSec: 86400, keyBy: "caller", successOnly: true, matches: (m, p) => isRead(m) && /^\/api\/v1\/orgs\/[^/]+\/export$/.test(p) },
];

/**
 * Requests that present no credentials at all and may use these paths without counting against
 * the floor: the liveness check (a probe told 429 would have a healthy instance restarted), the
 * app's hashed static files (served from memory; a signed-in browser fetches them without a token
 * too, so counting them would let a page load eat the floor) and published sites, which have their
 * own per-IP rule of 600 per minute. A request with credentials that do not verify counts on every
 * path: resolving them is the work the floor exists to bound.
 */
function freeWithoutCredentials(path: string): boolean {
  return path === "/api/health" || path.startsWith("/_app/") || path === "/p" || path.startsWith("/p/");
}

/**
 * The per-IP floor (docs/decisions/rate-limits.md): every request without a verified caller (no
 * credentials, or credentials that do not verify) counts here, across all paths, in addition to
 * the category rules above. 600 per minute is the most a public surface allows (published docs),
 * twice an anonymous content reader's allowance, and far above a signed-out browser's needs.
 */
export const ANONYMOUS_FLOOR: RateRule = {
  name: "anonymous",
  limit: 600,
  windowSec: 60,
  keyBy: "ip",
  callers: "anonymous",
  matches: (_m, p, credentialsPresented = false) => credentialsPresented || !freeWithoutCredentials(p),
};

interface RateState {
  limit: number;
  remaining: number;
  resetAt: number; // unix seconds
}

interface Window {
  count: number;
  resetAtMs: number;
}

/** Buckets kept at most; beyond it expired ones are swept at once and then the oldest dropped. */
const DEFAULT_MAX_BUCKETS = 100_000;

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;

  constructor(
    // The floor goes last: when a category rule and the floor are both used up, the category's
    // own figures are the ones reported.
    private readonly rules: RateRule[] = [...RATE_RULES, ANONYMOUS_FLOOR],
    private readonly maxBuckets = DEFAULT_MAX_BUCKETS,
  ) {}

  /** Number of live buckets (memory is bounded by callers, never by credentials presented). */
  get size(): number {
    return this.windows.size;
  }

  /**
   * Counts one request against every rule that matches and returns the tightest state, or throws
   * RATE_LIMITED when any rule is exhausted (a refused request consumes nothing). Returns null when
   * no rule applies. `credentialsPresented`: the request carried credentials (verified or not).
   */
  hit(
    method: string,
    path: string,
    principal: Principal | null,
    ip: string,
    nowMs: number,
    credentialsPresented = false,
    /** The account a credential endpoint's own credential names (a refresh cookie), for "user" rules of anonymous requests. */
    account: string | null = null,
    /**
     * Receives, for each `successOnly` rule counted, the function that gives the place back; the
     * caller runs them when the request ends without a 2xx answer. Without it such rules count
     * every request.
     */
    refunds?: Array<() => void>,
  ): RateState | null {
    let matched: RateRule[] | null = null;
    const sessionProven = principal?.kind === "session" || (!principal && account !== null);
    for (const rule of this.rules) {
      if (rule.callers === "anonymous" && principal) continue;
      if (!rule.matches(method, path, credentialsPresented, sessionProven)) continue;
      (matched ??= []).push(rule);
    }
    if (!matched) return null;
    return this.count(matched, (rule) => (account && !principal && rule.keyBy === "user" ? `user:${account}` : bucketOf(rule, principal, ip)), nowMs, refunds);
  }

  /**
   * The limiter of one route class for requests without credentials: the rules such a request
   * meets on every path of the class are selected once, here, from `method` and a `sample` path,
   * instead of trying every rule on every request. The caller answers for the class: each request
   * it counts this way must be one `hit` would give the same rules (same method kind, a path the
   * rules cannot tell from the sample, no credentials, no account). The published site's direct
   * lane is the one user: every `/p/{slug}/…` read meets the "published" rule and nothing else.
   * Rules that give places back (successOnly) need the caller's refunds and are refused here.
   */
  anonymousClass(method: string, sample: string): (ip: string, nowMs: number) => RateState | null {
    const selected = this.rules.filter((rule) => rule.matches(method, sample, false));
    if (selected.some((rule) => rule.successOnly)) throw new Error(`rate limits of ${method} ${sample} give places back: count them with hit()`);
    if (selected.length === 0) return () => null;
    // Anonymous callers are keyed by address under every rule (bucketOf).
    const keyOf = (_rule: RateRule, ip: string) => `ip:${ipBucket(ip)}`;
    if (selected.length === 1) {
      // One rule (the published site's): counted without count()'s arrays and closures.
      const rule = selected[0]!;
      const prefix = `${rule.name}|ip:`;
      return (ip, nowMs) => this.countOne(rule, prefix + ipBucket(ip), nowMs);
    }
    return (ip, nowMs) => this.count(selected, (rule) => keyOf(rule, ip), nowMs);
  }

  /** count() of a single rule with no refunds, its key given: the same checks, order and state. */
  private countOne(rule: RateRule, key: string, nowMs: number): RateState {
    let w = this.windows.get(key);
    if (w && w.resetAtMs <= nowMs) w = undefined;
    if (w && w.count >= rule.limit) {
      throw new RateLimitedError(rule.limit, Math.ceil(w.resetAtMs / 1000), Math.max(1, Math.ceil((w.resetAtMs - nowMs) / 1000)));
    }
    this.sweep(nowMs);
    if (!w) {
      w = { count: 0, resetAtMs: nowMs + rule.windowSec * 1000 };
      this.windows.delete(key); // re-insert so Map order stays oldest-first for eviction
      this.windows.set(key, w);
    }
    w.count++;
    return { limit: rule.limit, remaining: rule.limit - w.count, resetAt: Math.ceil(w.resetAtMs / 1000) };
  }

  /**
   * Counts one request against the given rules (keys from `bucket`) and returns the tightest
   * state, or throws RATE_LIMITED when any is exhausted (a refused request consumes nothing).
   */
  private count(rules: RateRule[], bucket: (rule: RateRule) => string, nowMs: number, refunds?: Array<() => void>): RateState {
    const keys: string[] = new Array(rules.length);
    const found: Array<Window | undefined> = new Array(rules.length);
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!;
      const key = `${rule.name}|${bucket(rule)}`;
      let w = this.windows.get(key);
      if (w && w.resetAtMs <= nowMs) w = undefined;
      if (w && w.count >= rule.limit) {
        throw new RateLimitedError(rule.limit, Math.ceil(w.resetAtMs / 1000), Math.max(1, Math.ceil((w.resetAtMs - nowMs) / 1000)));
      }
      keys[i] = key;
      found[i] = w;
    }
    this.sweep(nowMs);
    let tightest: RateState | null = null;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!;
      const key = keys[i]!;
      let w = found[i];
      if (!w) {
        w = { count: 0, resetAtMs: nowMs + rule.windowSec * 1000 };
        this.windows.delete(key); // re-insert so Map order stays oldest-first for eviction
        this.windows.set(key, w);
      }
      w.count++;
      if (rule.successOnly && refunds) {
        const taken = w;
        let given = false;
        refunds.push(() => {
          // Once, and only into the window it was taken from (a new window starts from zero anyway).
          if (given) return;
          given = true;
          if (this.windows.get(key) === taken && taken.count > 0) taken.count--;
        });
      }
      const remaining = rule.limit - w.count;
      if (!tightest || remaining < tightest.remaining) tightest = { limit: rule.limit, remaining, resetAt: Math.ceil(w.resetAtMs / 1000) };
    }
    return tightest!;
  }

  /** Forgets every count (tests that deliberately send many requests from one caller use it). */
  reset(): void {
    this.windows.clear();
  }

  private sweep(nowMs: number): void {
    const full = this.windows.size >= this.maxBuckets;
    if (!full && nowMs - this.lastSweep < 60_000) return;
    this.lastSweep = nowMs;
    for (const [key, w] of this.windows) if (w.resetAtMs <= nowMs) this.windows.delete(key);
    // Still full: many live callers (or spoofed addresses behind a trusting proxy). Dropping the
    // oldest windows loses some counts but keeps memory bounded, which matters more.
    if (this.windows.size >= this.maxBuckets) {
      let drop = this.windows.size - Math.floor(this.maxBuckets * 0.9);
      for (const key of this.windows.keys()) {
        if (drop-- <= 0) break;
        this.windows.delete(key);
      }
    }
  }
}

function bucketOf(rule: RateRule, principal: Principal | null, ip: string): string {
  if (principal?.kind === "session" && rule.keyBy === "caller") return `person:${principal.orgId}:${principal.userId}`;
  if (principal && rule.keyBy === "caller") return `org:${principal.orgId}`;
  if (principal && rule.keyBy === "user") return `user:${principal.userId}`;
  return `ip:${ipBucket(ip)}`;
}

/**
 * One client, one bucket: an IPv6 client usually holds a whole /64, so IPv6 addresses are counted
 * by their /64 prefix; otherwise a client could step through its own addresses to reset the limit.
 */
export function ipBucket(ip: string): string {
  if (!ip.includes(":")) return ip;
  const [head = "", tail = ""] = ip.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = ip.includes("::") ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right] : left;
  return groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":") + "::/64";
}
