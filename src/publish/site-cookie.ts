/**
 * The members' pass to published sites: a signed-in member who opens a `/p/` URL in the same
 * browser sees a members-only site without signing in again (docs/architecture.md §9). The app (which holds
 * the access token in memory only) asks `POST /api/v1/site-session` after sign-in; the answer sets
 * an HttpOnly cookie scoped to `/p/` that names the session and is signed with a per-instance key.
 * Each site request checks the signature, the expiry and that the session is still active, so
 * signing out (or revoking the session) closes the sites too. Membership is checked per site.
 */
import { randomBytes } from "node:crypto";
import type { Db } from "../db/database.ts";
import { constantTimeEqual, hmacSha256Hex, sha256Hex } from "../core/crypto.ts";
import type { Sessions } from "../identity/sessions.ts";
import type { Principal } from "../core/principal.ts";

const SITE_COOKIE = "quire_site";
/** Matches the refresh window of a session (7 days); the app renews it on every start. */
const LIFETIME_SEC = 7 * 24 * 3600;
/** How long a sign-in hand-off token may wait to be exchanged on the custom domain. */
const HANDOFF_TTL_MS = 60_000;
/** Hand-offs waiting at once (each lives a minute); past this the oldest are dropped. */
const MAX_HANDOFFS = 10_000;

/** The custom domain's short-lived cookie naming the hand-off its browser asked for. */
export const HANDOFF_STATE_COOKIE = "quire_handoff";
const STATE_LIFETIME_SEC = 600;
const STATE_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;

/** A pending hand-off: who, for which site, on which domain, for which browser (its state), until when. */
interface Handoff {
  sessionId: string;
  workspaceId: string;
  domain: string;
  state: string;
  expiresAt: number;
}

export class SiteCookies {
  private readonly key: string;
  /** Pending hand-offs by the SHA-256 of their token. */
  private readonly handoffs = new Map<string, Handoff>();
  private handoffsSweptAt = 0;

  constructor(
    db: Db,
    private readonly sessions: Sessions,
    private readonly secure: boolean,
  ) {
    const row = db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'site_cookie_key'").get();
    if (row) this.key = row.value;
    else {
      this.key = randomBytes(32).toString("hex");
      db.query("INSERT OR IGNORE INTO instance (key, value) VALUES ('site_cookie_key', ?)").run(this.key);
    }
  }

  /** The Set-Cookie header value for a session principal. */
  issue(sessionId: string, nowMs: number): string {
    const exp = Math.floor(nowMs / 1000) + LIFETIME_SEC;
    const value = `${sessionId}.${exp}.${this.sign(sessionId, exp)}`;
    return `${SITE_COOKIE}=${value}; Path=/p/; HttpOnly; SameSite=Lax; Max-Age=${LIFETIME_SEC}${this.secure ? "; Secure" : ""}`;
  }

  /** The Set-Cookie header value that removes the cookie (sign-out). */
  clear(): string {
    return `${SITE_COOKIE}=; Path=/p/; HttpOnly; SameSite=Lax; Max-Age=0${this.secure ? "; Secure" : ""}`;
  }

  /**
   * The member behind a Cookie header, or null (absent, forged, expired, or the session ended).
   * `domain`: the request came to that custom domain, whose cookie is signed for it alone.
   */
  principal(cookieHeader: string | null, nowMs: number, domain?: string): Principal | null {
    const value = readCookie(cookieHeader, SITE_COOKIE);
    if (!value) return null;
    const [sessionId, expText, mac] = value.split(".");
    if (!sessionId || !expText || !mac || !/^\d{1,12}$/.test(expText)) return null;
    const exp = Number(expText);
    if (!constantTimeEqual(mac, this.sign(sessionId, exp, domain))) return null;
    if (exp * 1000 <= nowMs) return null;
    if (!this.sessions.isActive(sessionId, nowMs)) return null;
    const session = this.sessions.get(sessionId);
    if (!session) return null;
    return { kind: "session", userId: session.user_id, orgId: session.org_id, sessionId };
  }

  // ---- sign-in hand-off to a custom domain (docs/decisions/published-sites.md) ----------------

  /**
   * A one-time token that carries a signed-in member's session to the site's custom domain: made
   * on the instance's address (where the member's cookie is), exchanged once on the domain within
   * HANDOFF_TTL_MS for a cookie of that domain. Only its hash is kept, in memory.
   */
  issueHandoff(sessionId: string, workspaceId: string, domain: string, state: string, nowMs: number): string {
    this.dropExpiredHandoffs(nowMs);
    const token = randomBytes(32).toString("base64url");
    this.handoffs.set(sha256Hex(token), { sessionId, workspaceId, domain, state, expiresAt: nowMs + HANDOFF_TTL_MS });
    return token;
  }

  /**
   * A new hand-off state for a custom domain's browser: the value (sent to the instance in the
   * URL) and the Set-Cookie that keeps it on the domain. Only the browser that asked can then
   * redeem the token, so nobody can sign a reader in to someone else's session (login CSRF).
   */
  newHandoffState(): { state: string; cookie: string } {
    const state = randomBytes(24).toString("base64url");
    return { state, cookie: `${HANDOFF_STATE_COOKIE}=${state}; Path=/_quire/; HttpOnly; SameSite=Lax; Max-Age=${STATE_LIFETIME_SEC}${this.secure ? "; Secure" : ""}` };
  }

  /** Whether a state from a URL is well-formed (the instance carries it; nothing else is trusted). */
  static isState(value: string | null): value is string {
    return value !== null && STATE_PATTERN.test(value);
  }

  /**
   * Exchanges a hand-off token on `domain` for the site `workspaceId`: the Set-Cookie value of the
   * domain's cookie, or null (unknown, used, expired, for another site or domain, or the session
   * ended). A token is spent by its first use, whatever the outcome.
   */
  redeemHandoff(token: string | null, state: string | null, workspaceId: string, domain: string, nowMs: number): string | null {
    if (!token || token.length > 100) return null;
    const key = sha256Hex(token);
    const handoff = this.handoffs.get(key);
    if (!handoff) return null;
    this.handoffs.delete(key);
    if (handoff.expiresAt <= nowMs || handoff.workspaceId !== workspaceId || handoff.domain !== domain) return null;
    if (!state || !constantTimeEqual(state, handoff.state)) return null;
    if (!this.sessions.isActive(handoff.sessionId, nowMs)) return null;
    const exp = Math.floor(nowMs / 1000) + LIFETIME_SEC;
    const value = `${handoff.sessionId}.${exp}.${this.sign(handoff.sessionId, exp, domain)}`;
    return `${SITE_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${LIFETIME_SEC}${this.secure ? "; Secure" : ""}`;
  }

  private dropExpiredHandoffs(nowMs: number): void {
    if (this.handoffs.size < MAX_HANDOFFS && nowMs - this.handoffsSweptAt < HANDOFF_TTL_MS) return;
    this.handoffsSweptAt = nowMs;
    for (const [key, h] of this.handoffs) if (h.expiresAt <= nowMs) this.handoffs.delete(key);
    let excess = this.handoffs.size - MAX_HANDOFFS + 1;
    for (const key of this.handoffs.keys()) {
      if (excess-- <= 0) break;
      this.handoffs.delete(key);
    }
  }

  /** A main-address cookie is signed for `site:`; a custom domain's for `site@{domain}:`, so neither opens the other. */
  private sign(sessionId: string, exp: number, domain?: string): string {
    return hmacSha256Hex(this.key, domain === undefined ? `site:${sessionId}:${exp}` : `site@${domain}:${sessionId}:${exp}`);
  }
}

export function readCookie(header: string | null, name: string): string | null {
  if (!header || header.length > 16384) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
