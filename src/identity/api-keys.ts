import type { z } from "zod";
import type { Db } from "../db/database.ts";
import { hmacSha256Hex } from "../core/crypto.ts";
import { randomBase62, ulid } from "../core/ids.ts";
import { NotFoundError, ValidationError } from "../core/errors.ts";
import { parseInput } from "../core/validate.ts";
import type { ApiKeyScope, Principal } from "../core/principal.ts";
import { createApiKeyInput, type apiKeyOutput } from "./schemas.ts";

export const API_KEY_PREFIX = "quire_live_";
/** The list shows this many leading characters of a secret. */
const SHOWN_PREFIX_LENGTH = 12;
const SECRET_PATTERN = /^quire_live_[0-9A-Za-z]{43}$/;
const DEFAULT_SCOPES: ApiKeyScope[] = ["read", "write", "delete"];
/** last_used_at is written at most this often per key, so a busy key costs no write per request. */
const LAST_USED_INTERVAL_MS = 60_000;


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

/** An API key as listed: the documented output schema's type, so the two cannot differ. */
type ApiKeyJson = z.infer<typeof apiKeyOutput>;

/**
 * API keys: `quire_live_` + 32 random bytes in base62 (43 characters). Only an HMAC-SHA256 of the
 * secret under the pepper is stored, so a stolen database yields no usable key, and a key cannot
 * be checked without the pepper.
 *
 * A key belongs to one user inside one organization: the organization of the session that made
 * it, or of the workspace it is limited to. What it may do is the intersection of its scopes
 * (checked per HTTP method) and its owner's role (checked by src/access/permissions.ts).
 */
export class ApiKeys {
  private readonly lastUsedWrite = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly pepper: string,
    /** The organization of a workspace the user holds a role in, or null. */
    private readonly workspaceOrg: (userId: string, workspaceId: string) => string | null,
  ) {}

  private hash(secret: string): string {
    return hmacSha256Hex(this.pepper, secret);
  }

  private static newSecret(): string {
    // 43 base62 characters carry 256 bits, the 32 random bytes docs/architecture.md §7 asks for
    return API_KEY_PREFIX + randomBase62(43);
  }

  create(userId: string, orgId: string, body: unknown, nowMs: number = Date.now()): { key: ApiKeyJson; secret: string } {
    const input = parseInput(createApiKeyInput, body);
    if (input.expires_at != null && input.expires_at <= Math.floor(nowMs / 1000)) {
      throw new ValidationError("expires_at must be in the future (Unix seconds)", "expires_at");
    }
    let keyOrg = orgId;
    if (input.workspace_id) {
      const org = this.workspaceOrg(userId, input.workspace_id);
      if (org === null) throw new ValidationError("workspace_id names no workspace you belong to", "workspace_id");
      keyOrg = org;
    }
    const secret = ApiKeys.newSecret();
    const row: ApiKeyRow = {
      id: ulid(nowMs),
      user_id: userId,
      org_id: keyOrg,
      workspace_id: input.workspace_id ?? null,
      name: input.name ?? "API key",
      prefix: secret.slice(0, SHOWN_PREFIX_LENGTH),
      secret_hash: this.hash(secret),
      scopes: JSON.stringify([...new Set(input.scopes ?? DEFAULT_SCOPES)]),
      expires_at: input.expires_at ?? null,
      created_at: new Date(nowMs).toISOString(),
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

  /** Another user's key is answered exactly like a missing one. */
  delete(userId: string, id: string): void {
    const changes = this.db.query("DELETE FROM api_keys WHERE id = ? AND user_id = ?").run(id, userId).changes;
    if (changes === 0) throw new NotFoundError("API key not found");
    this.lastUsedWrite.delete(id);
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
    const nowMs = nowSec * 1000;
    const last = this.lastUsedWrite.get(row.id);
    if (last === undefined || nowMs - last >= LAST_USED_INTERVAL_MS) {
      this.lastUsedWrite.set(row.id, nowMs);
      this.db.query("UPDATE api_keys SET last_used_at = ? WHERE id = ?").run(new Date(nowMs).toISOString(), row.id);
    }
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
    org_id: row.org_id,
    expires_at: row.expires_at,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}
