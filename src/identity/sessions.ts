import type { Db } from "../db/database.ts";
import { sha256Hex } from "../core/crypto.ts";
import { ulid, randomToken } from "../core/ids.ts";
import { isoFromMs } from "../core/clock.ts";

/** Refresh tokens (and so sessions) last 7 days, rotated on every use. */
export const REFRESH_TTL_MS = 7 * 24 * 3600 * 1000;
/** last_active_at is written at most this often per session, to keep reads cheap. */
const TOUCH_INTERVAL_MS = 60_000;

export interface SessionRow {
  id: string;
  user_id: string;
  org_id: string;
  device: string;
  ip: string;
  created_at: string;
  last_active_at: string;
  expires_at: number;
}

export interface SessionJson {
  id: string;
  device: string;
  ip: string;
  created_at: string;
  last_active_at: string;
  current: boolean;
}

export type RotateResult =
  | { kind: "rotated"; session: SessionRow; refreshToken: string }
  | { kind: "invalid" }
  | { kind: "replayed"; userId: string };

export class Sessions {
  private readonly lastTouch = new Map<string, number>();
  constructor(private readonly db: Db) {}

  create(input: { userId: string; orgId: string; device: string; ip: string; nowMs: number }): {
    session: SessionRow;
    refreshToken: string;
  } {
    const now = isoFromMs(input.nowMs);
    const session: SessionRow = {
      id: ulid(input.nowMs),
      user_id: input.userId,
      org_id: input.orgId,
      device: input.device.slice(0, 512),
      ip: input.ip,
      created_at: now,
      last_active_at: now,
      expires_at: input.nowMs + REFRESH_TTL_MS,
    };
    const refreshToken = randomToken(32);
    const s = session;
    this.db.transaction(() => {
      this.db
        .query(
          `INSERT INTO sessions (id, user_id, org_id, device, ip, created_at, last_active_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(s.id, s.user_id, s.org_id, s.device, s.ip, s.created_at, s.last_active_at, s.expires_at);
      this.insertRefresh(refreshToken, session, input.nowMs);
    })();
    return { session, refreshToken };
  }

  private insertRefresh(token: string, session: SessionRow, nowMs: number): void {
    this.db
      .query("INSERT INTO refresh_tokens (token_hash, session_id, user_id, expires_at) VALUES (?, ?, ?, ?)")
      .run(sha256Hex(token), session.id, session.user_id, nowMs + REFRESH_TTL_MS);
  }

  /**
   * Exchanges a refresh token for a new one. A token already used is a replay: every session of
   * its user is revoked. Runs in one synchronous transaction, so two concurrent refreshes of the
   * same token cannot both succeed.
   */
  rotate(token: string, ctx: { ip: string; nowMs: number }): RotateResult {
    return this.db.transaction((): RotateResult => {
      const row = this.db
        .query<{ session_id: string; user_id: string; used_at: number | null; expires_at: number }, [string]>(
          "SELECT session_id, user_id, used_at, expires_at FROM refresh_tokens WHERE token_hash = ?",
        )
        .get(sha256Hex(token));
      if (!row) return { kind: "invalid" };
      if (row.used_at !== null) {
        this.revokeAllOf(row.user_id);
        return { kind: "replayed", userId: row.user_id };
      }
      if (row.expires_at <= ctx.nowMs) return { kind: "invalid" };
      const session = this.get(row.session_id);
      if (!session || session.expires_at <= ctx.nowMs) return { kind: "invalid" };
      this.db.query("UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?").run(ctx.nowMs, sha256Hex(token));
      const now = isoFromMs(ctx.nowMs);
      const expiresAt = ctx.nowMs + REFRESH_TTL_MS;
      this.db
        .query("UPDATE sessions SET last_active_at = ?, ip = ?, expires_at = ? WHERE id = ?")
        .run(now, ctx.ip, expiresAt, session.id);
      const refreshToken = randomToken(32);
      const updated = { ...session, last_active_at: now, ip: ctx.ip, expires_at: expiresAt };
      this.insertRefresh(refreshToken, updated, ctx.nowMs);
      return { kind: "rotated", session: updated, refreshToken };
    })();
  }

  get(id: string): SessionRow | null {
    return this.db.query<SessionRow, [string]>("SELECT * FROM sessions WHERE id = ?").get(id);
  }

  /** True when the session still exists and has not expired; notes activity at most once a minute. */
  isActive(id: string, nowMs: number): boolean {
    const row = this.db
      .query<{ expires_at: number }, [string]>("SELECT expires_at FROM sessions WHERE id = ?")
      .get(id);
    if (!row || row.expires_at <= nowMs) return false;
    const last = this.lastTouch.get(id) ?? 0;
    if (nowMs - last > TOUCH_INTERVAL_MS) {
      this.lastTouch.set(id, nowMs);
      this.db.query("UPDATE sessions SET last_active_at = ? WHERE id = ?").run(isoFromMs(nowMs), id);
    }
    return true;
  }

  list(userId: string, currentId: string | null, nowMs: number): SessionJson[] {
    return this.db
      .query<SessionRow, [string, number]>(
        "SELECT * FROM sessions WHERE user_id = ? AND expires_at > ? ORDER BY last_active_at DESC, id DESC",
      )
      .all(userId, nowMs)
      .map((s) => ({
        id: s.id,
        device: s.device,
        ip: s.ip,
        created_at: s.created_at,
        last_active_at: s.last_active_at,
        current: s.id === currentId,
      }));
  }

  /**
   * Deleting (or replacing) the signing key invalidates every session, not only the access tokens
   * it signed: refresh tokens are opaque rows that would otherwise outlive the key. The key id in
   * use is remembered in `instance`; when it differs at start-up every session is deleted.
   */
  retireIfSigningKeyChanged(kid: string): number {
    return this.db.transaction(() => {
      const row = this.db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'jwt_kid'").get();
      if (row?.value === kid) return 0;
      this.db.query("INSERT INTO instance (key, value) VALUES ('jwt_kid', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(kid);
      if (!row) return 0; // first start with this database: nothing was signed by another key
      this.lastTouch.clear();
      return this.db.query("DELETE FROM sessions").run().changes;
    })();
  }

  /**
   * Deletes what can never be used again: sessions past their refresh window (their refresh
   * tokens go with them) and refresh tokens past their own expiry. A used token is kept while it
   * is unexpired, because presenting it again is how a replay is recognised.
   */
  purgeExpired(nowMs: number): { sessions: number; refreshTokens: number } {
    const { sessions, refreshTokens } = this.db.transaction(() => ({
      sessions: this.db.query("DELETE FROM sessions WHERE expires_at <= ?").run(nowMs).changes,
      refreshTokens: this.db.query("DELETE FROM refresh_tokens WHERE expires_at <= ?").run(nowMs).changes,
    }))();
    this.pruneTouches(nowMs);
    return { sessions, refreshTokens };
  }

  /**
   * Forgets activity notes older than the touch interval. Such an entry no longer holds a write
   * back (isActive writes again either way), so dropping it changes nothing but the memory held
   * for sessions that ended on their own or were never seen again.
   */
  pruneTouches(nowMs: number): number {
    let dropped = 0;
    for (const [id, at] of this.lastTouch) {
      if (nowMs - at > TOUCH_INTERVAL_MS) {
        this.lastTouch.delete(id);
        dropped++;
      }
    }
    return dropped;
  }

  /** How many sessions have an activity note in memory (for the maintenance tests). */
  get touchedCount(): number {
    return this.lastTouch.size;
  }

  /** Deletes every session (and so every refresh token) of the user; access tokens die with them. */
  revokeAllOf(userId: string): number {
    const ids = this.db.query<{ id: string }, [string]>("SELECT id FROM sessions WHERE user_id = ?").all(userId);
    for (const { id } of ids) this.lastTouch.delete(id);
    return this.db.query("DELETE FROM sessions WHERE user_id = ?").run(userId).changes;
  }
}
