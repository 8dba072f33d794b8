import { z } from "zod";
import type { Db } from "../db/database.ts";
import { hmacSha256Hex } from "../core/crypto.ts";
import { randomBase62, ulid } from "../core/ids.ts";
import { nowIso } from "../core/clock.ts";
import { NotFoundError, ValidationError } from "../core/errors.ts";
import { parseInput, displayName, ulidString } from "../core/validate.ts";
import { API_KEY_SCOPES, type ApiKeyScope, type Principal } from "../access/principal.ts";

export const API_KEY_PREFIX = "quire_live_";
/** The list shows this many leading characters of a secret. */
const SHOWN_PREFIX_LENGTH = 12;
const SECRET_PATTERN = /^quire_live_[0-9A-Za-z]{43}$/;

export const createApiKeyInput = z.object({
  name: displayName(100).optional(),
  scopes: z.array(z.enum(API_KEY_SCOPES)).min(1).max(5).optional(),
  expires_at: z.number().int().positive().nullable().optional(),
  workspace_id: ulidString.nullable().optional(),
});

interface ApiKeyRow {
  id: string;
  user_id: string;
  org_id: string;
  workspace_id: string | null;
  name: string;
  prefix: string;
  secret_hash: string;
  scopes: string;
  expires_at: number | null;
  created_at: string;
  last_used_at: string | null;
}

export interface ApiKeyJson {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  workspace_id: string | null;
  expires_at: number | null;
  created_at: string;
  last_used_at: string | null;
}

/**
 * API keys: `quire_live_` + 32 random bytes in base62 (43 characters). Only an HMAC-SHA256 of the
 * secret under the pepper is stored, so a stolen database yields no usable key.
 */
export class ApiKeys {
  constructor(
    private readonly db: Db,
    private readonly pepper: string,
    private readonly canUseWorkspace: (userId: string, workspaceId: string) => boolean,
  ) {}

  private hash(secret: string): string {
    return hmacSha256Hex(this.pepper, secret);
  }

  private static newSecret(): string {
    // 32 bytes of entropy ≈ 43 base62 characters
    return API_KEY_PREFIX + randomBase62(43);
  }

  create(userId: string, orgId: string, body: unknown): { key: ApiKeyJson; secret: string } {
    const input = parseInput(createApiKeyInput, body);
    const nowSec = Math.floor(Date.now() / 1000);
    if (input.expires_at != null && input.expires_at <= nowSec) {
      throw new ValidationError("expires_at must be in the future (Unix seconds)", "expires_at");
    }
    if (input.workspace_id && !this.canUseWorkspace(userId, input.workspace_id)) {
      throw new ValidationError("workspace_id names no workspace you belong to", "workspace_id");
    }
    const secret = ApiKeys.newSecret();
    const row: ApiKeyRow = {
      id: ulid(),
      user_id: userId,
      org_id: orgId,
      workspace_id: input.workspace_id ?? null,
      name: input.name ?? "API key",
      prefix: secret.slice(0, SHOWN_PREFIX_LENGTH),
      secret_hash: this.hash(secret),
      scopes: JSON.stringify([...new Set(input.scopes ?? ["read", "write", "delete"])]),
      expires_at: input.expires_at ?? null,
      created_at: nowIso(),
      last_used_at: null,
    };
    this.db
      .query(
        `INSERT INTO api_keys (id, user_id, org_id, workspace_id, name, prefix, secret_hash, scopes, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.id, row.user_id, row.org_id, row.workspace_id, row.name, row.prefix, row.secret_hash, row.scopes, row.expires_at, row.created_at);
    return { key: toJson(row), secret };
  }

  list(userId: string): ApiKeyJson[] {
    return this.db
      .query<ApiKeyRow, [string]>("SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id DESC")
      .all(userId)
      .map(toJson);
  }

  delete(userId: string, id: string): void {
    const changes = this.db.query("DELETE FROM api_keys WHERE id = ? AND user_id = ?").run(id, userId).changes;
    if (changes === 0) throw new NotFoundError("API key not found");
  }

  /** Same id, name, scopes and expiry; a new secret; the old secret stops working at once. */
  rotate(userId: string, id: string): { key: ApiKeyJson; secret: string } {
    const row = this.db.query<ApiKeyRow, [string, string]>("SELECT * FROM api_keys WHERE id = ? AND user_id = ?").get(id, userId);
    if (!row) throw new NotFoundError("API key not found");
    const secret = ApiKeys.newSecret();
    const prefix = secret.slice(0, SHOWN_PREFIX_LENGTH);
    this.db.query("UPDATE api_keys SET secret_hash = ?, prefix = ? WHERE id = ?").run(this.hash(secret), prefix, id);
    return { key: toJson({ ...row, prefix }), secret };
  }

  /** The principal a secret stands for, or null when it is unknown, malformed or expired. */
  authenticate(secret: string, nowSec: number): Principal | null {
    if (!SECRET_PATTERN.test(secret)) return null;
    // The lookup is by keyed hash, so timing reveals nothing about stored secrets.
    const row = this.db.query<ApiKeyRow, [string]>("SELECT * FROM api_keys WHERE secret_hash = ?").get(this.hash(secret));
    if (!row) return null;
    if (row.expires_at !== null && row.expires_at <= nowSec) return null;
    this.db.query("UPDATE api_keys SET last_used_at = ? WHERE id = ?").run(nowIso(), row.id);
    return {
      kind: "api_key",
      userId: row.user_id,
      orgId: row.org_id,
      keyId: row.id,
      scopes: JSON.parse(row.scopes) as ApiKeyScope[],
      workspaceId: row.workspace_id,
    };
  }
}

function toJson(row: ApiKeyRow): ApiKeyJson {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: JSON.parse(row.scopes) as ApiKeyScope[],
    workspace_id: row.workspace_id,
    expires_at: row.expires_at,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}
