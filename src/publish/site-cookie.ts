/**
 * The members' pass to published sites: a signed-in member who opens a `/p/` URL in the same
 * browser sees a members-only site without signing in again (DESIGN.md §9). The app (which holds
 * the access token in memory only) asks `POST /api/v1/site-session` after sign-in; the answer sets
 * an HttpOnly cookie scoped to `/p/` that names the session and is signed with a per-instance key.
 * Each site request checks the signature, the expiry and that the session is still active, so
 * signing out (or revoking the session) closes the sites too. Membership is checked per site.
 */
import { randomBytes } from "node:crypto";
import type { Db } from "../db/database.ts";
import { constantTimeEqual, hmacSha256Hex } from "../core/crypto.ts";
import type { Sessions } from "../identity/sessions.ts";
import type { Principal } from "../access/principal.ts";

export const SITE_COOKIE = "quire_site";
/** Matches the refresh window of a session (7 days); the app renews it on every start. */
const LIFETIME_SEC = 7 * 24 * 3600;

export class SiteCookies {
  private readonly key: string;

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

  /** The member behind a Cookie header, or null (absent, forged, expired, or the session ended). */
  principal(cookieHeader: string | null, nowMs: number): Principal | null {
    const value = readCookie(cookieHeader, SITE_COOKIE);
    if (!value) return null;
    const [sessionId, expText, mac] = value.split(".");
    if (!sessionId || !expText || !mac || !/^\d{1,12}$/.test(expText)) return null;
    const exp = Number(expText);
    if (!constantTimeEqual(mac, this.sign(sessionId, exp))) return null;
    if (exp * 1000 <= nowMs) return null;
    if (!this.sessions.isActive(sessionId, nowMs)) return null;
    const session = this.sessions.get(sessionId);
    if (!session) return null;
    return { kind: "session", userId: session.user_id, orgId: session.org_id, sessionId };
  }

  private sign(sessionId: string, exp: number): string {
    return hmacSha256Hex(this.key, `site:${sessionId}:${exp}`);
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
