import { createHmac, randomBytes } from "node:crypto";
import type { Db } from "../db/database.ts";
import { sha256Hex } from "../core/crypto.ts";
import { randomToken, ulid } from "../core/ids.ts";
import { isoFromMs } from "../core/clock.ts";
import { REFRESH_GRACE_MS } from "../identity/sessions.ts";
import type { OAuthScope } from "./schemas.ts";

/** A grant's refresh token lasts 30 days from its last use (each use rotates it). */
const OAUTH_REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
/** How many rotations inside the grace window are followed to find the live successor. */
const MAX_GRACE_STEPS = 4;
/** last_used_at is written at most this often per grant. */
const TOUCH_INTERVAL_MS = 60_000;

export interface GrantRow {
  id: string;
  user_id: string;
  org_id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  scopes: string;
  workspace_ids: string;
  resource: string;
  created_at: string;
  last_used_at: string | null;
}

type GrantRotation = { kind: "rotated"; grant: GrantRow; refreshToken: string } | { kind: "invalid" } | { kind: "replayed" };

/**
 * Grants — what a person let one client do: scopes and workspaces, as consented — and their
 * refresh tokens. Rotation works as the web sessions' (src/identity/sessions.ts): a successor is
 * derived from its predecessor by HMAC, so a client that sends the same refresh token twice within
 * the grace window (a retried request) gets the same successor, and a reuse after it is a replay
 * that deletes the grant, ending every token it issued.
 */
export class Grants {
  private successorKey: Buffer | null = null;
  private readonly lastTouch = new Map<string, number>();

  constructor(private readonly db: Db) {}

  private successorOf(token: string): string {
    if (!this.successorKey) {
      this.db.query("INSERT OR IGNORE INTO instance (key, value) VALUES ('oauth_refresh_successor_key', ?)").run(randomBytes(32).toString("base64url"));
      const row = this.db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'oauth_refresh_successor_key'").get()!;
      this.successorKey = Buffer.from(row.value, "base64url");
    }
    return createHmac("sha256", this.successorKey).update("oauth-refresh-successor\0").update(token).digest("base64url");
  }

  create(input: { userId: string; orgId: string; clientId: string; clientName: string; redirectUri: string; scopes: OAuthScope[]; workspaceIds: string[]; resource: string }, nowMs: number): { grant: GrantRow; refreshToken: string } {
    const grant: GrantRow = {
      id: ulid(nowMs),
      user_id: input.userId,
      org_id: input.orgId,
      client_id: input.clientId,
      client_name: input.clientName,
      redirect_uri: input.redirectUri,
      scopes: input.scopes.join(" "),
      workspace_ids: JSON.stringify(input.workspaceIds),
      resource: input.resource,
      created_at: isoFromMs(nowMs),
      last_used_at: isoFromMs(nowMs),
    };
    const refreshToken = randomToken(32);
    this.db.transaction(() => {
      this.db
        .query(
          `INSERT INTO oauth_grants (id, user_id, org_id, client_id, client_name, redirect_uri, scopes, workspace_ids, resource, created_at, last_used_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(grant.id, grant.user_id, grant.org_id, grant.client_id, grant.client_name, grant.redirect_uri, grant.scopes, grant.workspace_ids, grant.resource, grant.created_at, grant.last_used_at);
      this.insertRefresh(refreshToken, grant.id, nowMs);
    })();
    return { grant, refreshToken };
  }

  private insertRefresh(token: string, grantId: string, nowMs: number): void {
    this.db.query("INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at) VALUES (?, ?, ?)").run(sha256Hex(token), grantId, nowMs + OAUTH_REFRESH_TTL_MS);
  }

  private refreshRow(token: string) {
    return this.db
      .query<{ grant_id: string; used_at: number | null; expires_at: number }, [string]>("SELECT grant_id, used_at, expires_at FROM oauth_refresh_tokens WHERE token_hash = ?")
      .get(sha256Hex(token));
  }

  get(id: string): GrantRow | null {
    return this.db.query<GrantRow, [string]>("SELECT * FROM oauth_grants WHERE id = ?").get(id);
  }

  /** The grant a refresh token belongs to (used or not), or null. */
  grantOfRefreshToken(token: string): string | null {
    return this.refreshRow(token)?.grant_id ?? null;
  }

  /** Exchanges a refresh token for its successor, in one synchronous transaction. */
  rotate(token: string, nowMs: number): GrantRotation {
    return this.db.transaction((): GrantRotation => {
      const row = this.refreshRow(token);
      if (!row) return { kind: "invalid" };
      if (row.used_at !== null) return this.withinGrace(token, row.grant_id, row.used_at, nowMs);
      if (row.expires_at <= nowMs) return { kind: "invalid" };
      const grant = this.get(row.grant_id);
      if (!grant) return { kind: "invalid" };
      this.db.query("UPDATE oauth_refresh_tokens SET used_at = ? WHERE token_hash = ?").run(nowMs, sha256Hex(token));
      const next = this.successorOf(token);
      this.insertRefresh(next, grant.id, nowMs);
      return { kind: "rotated", grant, refreshToken: next };
    })();
  }

  private withinGrace(token: string, grantId: string, firstUsedAt: number, nowMs: number): GrantRotation {
    let current = token;
    let usedAt: number | null = firstUsedAt;
    for (let step = 0; step < MAX_GRACE_STEPS && usedAt !== null; step++) {
      if (nowMs - usedAt > REFRESH_GRACE_MS) break;
      const next = this.successorOf(current);
      const nextRow = this.refreshRow(next);
      if (!nextRow || nextRow.expires_at <= nowMs) return { kind: "invalid" };
      const grant = this.get(nextRow.grant_id);
      if (!grant) return { kind: "invalid" };
      if (nextRow.used_at === null) return { kind: "rotated", grant, refreshToken: next };
      current = next;
      usedAt = nextRow.used_at;
    }
    this.delete(grantId);
    return { kind: "replayed" };
  }

  /** Drops expired refresh tokens, then the grants left with none (see OAuthService.purgeExpired). */
  purgeExpired(nowMs: number): number {
    return this.db.transaction(() => {
      this.db.query("DELETE FROM oauth_refresh_tokens WHERE expires_at <= ?").run(nowMs);
      return this.db.query("DELETE FROM oauth_grants WHERE NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens t WHERE t.grant_id = oauth_grants.id)").run().changes;
    })();
  }

  /** Ends a grant: its refresh tokens go with it, and its access tokens are refused from now on. */
  delete(id: string): boolean {
    this.lastTouch.delete(id);
    return this.db.query("DELETE FROM oauth_grants WHERE id = ?").run(id).changes > 0;
  }

  /** Notes a use of the grant, at most once a minute. */
  touch(id: string, nowMs: number): void {
    const last = this.lastTouch.get(id) ?? 0;
    if (nowMs - last < TOUCH_INTERVAL_MS) return;
    if (this.lastTouch.size > 10_000) this.lastTouch.clear();
    this.lastTouch.set(id, nowMs);
    this.db.query("UPDATE oauth_grants SET last_used_at = ? WHERE id = ?").run(isoFromMs(nowMs), id);
  }

  ofUser(userId: string): GrantRow[] {
    return this.db.query<GrantRow, [string]>("SELECT * FROM oauth_grants WHERE user_id = ? ORDER BY created_at DESC, id DESC").all(userId);
  }

  ofOrg(orgId: string): GrantRow[] {
    return this.db.query<GrantRow, [string]>("SELECT * FROM oauth_grants WHERE org_id = ? ORDER BY created_at DESC, id DESC").all(orgId);
  }
}
