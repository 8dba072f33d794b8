import type { z } from "zod";
import type { sessionOutput } from "./schemas.ts";
import type { Db } from "../db/database.ts";
import { createHmac, randomBytes } from "node:crypto";
import { sha256Hex } from "../core/crypto.ts";
import { ulid, randomToken } from "../core/ids.ts";
import { isoFromMs } from "../core/clock.ts";

/** Refresh tokens (and so sessions) last 7 days, rotated on every use. */
export const REFRESH_TTL_MS = 7 * 24 * 3600 * 1000;
/**
 * A rotated refresh token presented again within this window is not a replay: a browser that
 * restores several tabs at once sends the same cookie from each of them within the same second.
 * Those callers get the same successor; only a reuse after the window revokes
 * (docs/decisions/session-grace-window.md).
 */
export const REFRESH_GRACE_MS = 30_000;
/** How many rotations inside the window are followed to find the live successor. */
const MAX_GRACE_STEPS = 4;
/** last_active_at is written at most this often per session, to keep reads cheap. */
const TOUCH_INTERVAL_MS = 60_000;

interface SessionRow {
  id: string;
  user_id: string;
  org_id: string;
  device: string;
  ip: string;
  created_at: string;
  last_active_at: string;
  expires_at: number;
}

/** A session as answered: the documented output schema's type. */
export type SessionJson = z.infer<typeof sessionOutput>;

type RotateResult =
  | { kind: "rotated"; session: SessionRow; refreshToken: string }
  | { kind: "invalid" }
  | { kind: "replayed"; userId: string };

export class Sessions {
  private readonly lastTouch = new Map<string, number>();
  private successorKey: Buffer | null = null;
  constructor(private readonly db: Db) {}

  /**
   * The successor of a refresh token is derived from it (HMAC with a per-instance secret kept in
   * the database), not drawn at random: every tab that presents the same token within the grace
   * window can then be handed the same successor without the server ever storing a usable token.
   */
  private successorOf(token: string): string {
    if (!this.successorKey) {
      const row = this.db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'refresh_successor_key'").get();
      if (row) this.successorKey = Buffer.from(row.value, "base64url");
      else {
        const key = randomBytes(32);
        this.db.query("INSERT OR IGNORE INTO instance (key, value) VALUES ('refresh_successor_key', ?)").run(key.toString("base64url"));
        const stored = this.db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'refresh_successor_key'").get()!;
        this.successorKey = Buffer.from(stored.value, "base64url");
      }
    }
    return createHmac("sha256", this.successorKey).update("refresh-successor\0").update(token).digest("base64url");
  }

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
   * Exchanges a refresh token for a new one. A token already used is a replay (every session of
   * its user is revoked) unless it was used less than REFRESH_GRACE_MS ago: then the caller gets
   * the successor that use produced (followed along rotations made inside the window), so tabs
   * restored together all stay signed in. Runs in one synchronous transaction.
   */
  rotate(token: string, ctx: { ip: string; nowMs: number }): RotateResult {
    return this.db.transaction((): RotateResult => {
      const row = this.refreshRow(token);
      if (!row) return { kind: "invalid" };
      if (row.used_at !== null) return this.withinGrace(token, row, ctx.nowMs);
      if (row.expires_at <= ctx.nowMs) return { kind: "invalid" };
      const session = this.get(row.session_id);
      if (!session || session.expires_at <= ctx.nowMs) return { kind: "invalid" };
      this.db.query("UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?").run(ctx.nowMs, sha256Hex(token));
      const now = isoFromMs(ctx.nowMs);
      const expiresAt = ctx.nowMs + REFRESH_TTL_MS;
      this.db
        .query("UPDATE sessions SET last_active_at = ?, ip = ?, expires_at = ? WHERE id = ?")
        .run(now, ctx.ip, expiresAt, session.id);
      const refreshToken = this.successorOf(token);
      const updated = { ...session, last_active_at: now, ip: ctx.ip, expires_at: expiresAt };
      this.insertRefresh(refreshToken, updated, ctx.nowMs);
      return { kind: "rotated", session: updated, refreshToken };
    })();
  }

  /** Whose refresh token this is (used or not), without touching it; null for anything unknown. */
  accountOfRefreshToken(token: string): string | null {
    if (token.length === 0 || token.length > 512) return null;
    return this.db.query<{ user_id: string }, [string]>("SELECT user_id FROM refresh_tokens WHERE token_hash = ?").get(sha256Hex(token))?.user_id ?? null;
  }

  private refreshRow(token: string) {
    return this.db
      .query<{ session_id: string; user_id: string; used_at: number | null; expires_at: number }, [string]>(
        "SELECT session_id, user_id, used_at, expires_at FROM refresh_tokens WHERE token_hash = ?",
      )
      .get(sha256Hex(token));
  }

  /** A used token presented again: the live successor inside the grace window, a replay after it. */
  private withinGrace(token: string, row: { user_id: string; used_at: number | null }, nowMs: number): RotateResult {
    let current = token;
    let usedAt = row.used_at;
    for (let step = 0; step < MAX_GRACE_STEPS && usedAt !== null; step++) {
      if (nowMs - usedAt > REFRESH_GRACE_MS) break;
      const next = this.successorOf(current);
      const nextRow = this.refreshRow(next);
      // The successor is gone: its session was revoked or has expired in the meantime.
      if (!nextRow || nextRow.expires_at <= nowMs) return { kind: "invalid" };
      const session = this.get(nextRow.session_id);
      if (!session || session.expires_at <= nowMs) return { kind: "invalid" };
      if (nextRow.used_at === null) return { kind: "rotated", session, refreshToken: next };
      current = next;
      usedAt = nextRow.used_at;
    }
    this.revokeAllOf(row.user_id);
    return { kind: "replayed", userId: row.user_id };
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
