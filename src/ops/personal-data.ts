/**
 * GET /api/v1/users/me/export (Cloud): a person's own data as one JSON document — the account,
 * organizations and workspace memberships, sessions, API keys (prefix only), comments written and
 * onboarding state. Never a password hash, token hash or key secret. 1 per 24 hours (rate limits).
 */
import type { Db } from "../db/database.ts";
import { nowIso } from "../core/clock.ts";
import type { Services } from "../services.ts";

export function personalDataExport(services: Pick<Services, "db" | "auth" | "apiKeys" | "sessions" | "onboarding">, userId: string) {
  const db: Db = services.db;
  return {
    exported_at: nowIso(),
    user: services.auth.me(userId),
    organizations: db
      .query<{ id: string; name: string; handle: string; role: string; joined_at: string }, [string]>(
        "SELECT o.id, o.name, o.handle, m.role, m.joined_at FROM org_members m JOIN organizations o ON o.id = m.org_id WHERE m.user_id = ? ORDER BY m.joined_at",
      )
      .all(userId),
    workspaces: db
      .query<{ id: string; name: string; slug: string; role: string; joined_at: string }, [string]>(
        "SELECT w.id, w.name, w.slug, m.role, m.joined_at FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = ? ORDER BY m.joined_at",
      )
      .all(userId),
    sessions: services.sessions.list(userId, null, Date.now()),
    api_keys: services.apiKeys.list(userId),
    comments: db
      .query<{ id: string; workspace_id: string; page_path: string; body: string; created_at: string }, [string]>(
        "SELECT id, workspace_id, page_path, body, created_at FROM comments WHERE author_id = ? ORDER BY created_at",
      )
      .all(userId),
    onboarding: services.onboarding.get(userId),
  };
}
