import { RateLimitedError } from "../core/errors.ts";
import type { Principal } from "../access/principal.ts";

/**
 * Fixed-window counters per (rule, key), in memory. The key is the caller's organization when
 * authenticated and the client IP otherwise; requests with garbage credentials count as
 * unauthenticated, so they share the IP's bucket instead of minting new ones.
 *
 * A dedicated library was weighed: elysia-rate-limit keeps one limit per plugin instance and keys
 * before our authentication runs, so expressing the specification's categories (several rules per
 * request, per-org vs per-IP keys) took more glue than this file.
 */
export interface RateRule {
  name: string;
  limit: number;
  windowSec: number;
  /** "caller": per organization when authenticated, per IP otherwise. "ip": always per IP. */
  keyBy: "caller" | "ip";
  matches(method: string, path: string): boolean;
}

const isRead = (m: string) => m === "GET" || m === "HEAD";

export const RATE_RULES: RateRule[] = [
  { name: "register", limit: 5, windowSec: 3600, keyBy: "ip", matches: (m, p) => m === "POST" && p === "/api/auth/register" },
  {
    name: "password_reset",
    limit: 5,
    windowSec: 900,
    keyBy: "ip",
    matches: (m, p) => m === "POST" && (p === "/api/auth/forgot-password" || p === "/api/auth/reset-password"),
  },
  { name: "auth", limit: 20, windowSec: 60, keyBy: "caller", matches: (_m, p) => p.startsWith("/api/auth/") },
  { name: "content_read", limit: 300, windowSec: 60, keyBy: "caller", matches: (m, p) => isRead(m) && p.startsWith("/api/v1/content/") },
  { name: "content_write", limit: 60, windowSec: 60, keyBy: "caller", matches: (m, p) => !isRead(m) && p.startsWith("/api/v1/content/") },
  {
    name: "search",
    limit: 60,
    windowSec: 60,
    keyBy: "caller",
    matches: (m, p) => isRead(m) && /^\/api\/v1\/workspaces\/[^/]+\/search\/?$/.test(p),
  },
  { name: "git_webhook", limit: 30, windowSec: 60, keyBy: "ip", matches: (m, p) => m === "POST" && p.startsWith("/api/git/webhook/") },
  { name: "published", limit: 600, windowSec: 60, keyBy: "ip", matches: (_m, p) => p === "/p" || p.startsWith("/p/") },
  {
    name: "data_export",
    limit: 1,
    windowSec: 86400,
    keyBy: "caller",
    matches: (m, p) => isRead(m) && (p === "/api/v1/users/me/export" || /^\/api\/v1\/orgs\/[^/]+\/export$/.test(p)),
  },
];

export interface RateState {
  limit: number;
  remaining: number;
  resetAt: number; // unix seconds
}

export class RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAtMs: number }>();
  private lastSweep = 0;

  constructor(private readonly rules: RateRule[] = RATE_RULES) {}

  /**
   * Counts one request against every rule that matches and returns the tightest state, or throws
   * RATE_LIMITED when any rule is exhausted. Returns null when no rule applies.
   */
  hit(method: string, path: string, principal: Principal | null, ip: string, nowMs: number): RateState | null {
    this.sweep(nowMs);
    let tightest: RateState | null = null;
    for (const rule of this.rules) {
      if (!rule.matches(method, path)) continue;
      const who = rule.keyBy === "caller" && principal ? `org:${principal.orgId}` : `ip:${ip}`;
      const key = `${rule.name}|${who}`;
      let w = this.windows.get(key);
      if (!w || w.resetAtMs <= nowMs) {
        w = { count: 0, resetAtMs: nowMs + rule.windowSec * 1000 };
        this.windows.set(key, w);
      }
      const resetAt = Math.ceil(w.resetAtMs / 1000);
      if (w.count >= rule.limit) {
        throw new RateLimitedError(rule.limit, resetAt, Math.max(1, Math.ceil((w.resetAtMs - nowMs) / 1000)));
      }
      w.count++;
      const state = { limit: rule.limit, remaining: rule.limit - w.count, resetAt };
      if (!tightest || state.remaining < tightest.remaining) tightest = state;
    }
    return tightest;
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < 60_000) return;
    this.lastSweep = nowMs;
    for (const [key, w] of this.windows) if (w.resetAtMs <= nowMs) this.windows.delete(key);
  }
}
