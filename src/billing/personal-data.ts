/**
 * GET /api/v1/users/me/export (Cloud): a person's own data as one JSON document — the account,
 * organizations and workspace memberships, sessions, API keys (prefix only), comments written and
 * onboarding state. Never a password hash, token hash or key secret. 1 per 24 hours (rate limits).
 */
import type { Db } from "../db/database.ts";
import { nowIso } from "../core/clock.ts";
import { NotFoundError } from "../core/errors.ts";
import type { AuthService } from "../identity/auth-service.ts";
import type { ApiKeys } from "../identity/api-keys.ts";
import type { Sessions } from "../identity/sessions.ts";
import type { Onboarding } from "../identity/onboarding.ts";

export function personalDataExport(
  services: { db: Db; auth: AuthService; apiKeys: ApiKeys; sessions: Sessions; onboarding: Onboarding },
  userId: string,
) {
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

/**
 * GET /api/v1/orgs/:handle/export (Cloud, the organization's super admin): the organization's
 * records as one JSON document — members, workspaces and their settings, memberships, invitations
 * and share links (never their token hashes), outbound webhooks (never their secrets), comments
 * and the pages' metadata. The pages' Markdown is in each workspace's git repository, which is the
 * portable copy of the content (clone it); it is not repeated here. Anyone else gets 404, so the
 * route does not reveal which organizations exist. 1 per 24 hours per organization (rate limits).
 */
export function organizationExport(db: Db, permissions: { isSuperAdminOf(userId: string, orgId: string): boolean }, userId: string, handle: string) {
  const org = db
    .query<{ id: string; name: string; handle: string; created_at: string }, [string]>("SELECT id, name, handle, created_at FROM organizations WHERE handle = ?")
    .get(handle);
  if (!org || !permissions.isSuperAdminOf(userId, org.id)) throw new NotFoundError("Organization not found");
  const workspaces = db
    .query<{ id: string; name: string; slug: string; description: string; git_branch: string; published: number; settings: string; created_at: string }, [string]>(
      "SELECT id, name, slug, description, git_branch, published, settings, created_at FROM workspaces WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at",
    )
    .all(org.id);
  const ids = workspaces.map((w) => w.id);
  const inWorkspaces = <T>(sql: string): T[] =>
    ids.length === 0 ? [] : db.query<T, string[]>(sql.replace("(?)", `(${ids.map(() => "?").join(", ")})`)).all(...ids);
  return {
    exported_at: nowIso(),
    organization: org,
    members: db
      .query<{ user_id: string; name: string; email: string; role: string; joined_at: string }, [string]>(
        "SELECT m.user_id, u.name, u.email, m.role, m.joined_at FROM org_members m JOIN users u ON u.id = m.user_id WHERE m.org_id = ? ORDER BY m.joined_at",
      )
      .all(org.id),
    workspaces: workspaces.map((w) => ({ ...w, published: w.published === 1, settings: JSON.parse(w.settings) as unknown })),
    workspace_members: inWorkspaces("SELECT workspace_id, user_id, role, joined_at FROM workspace_members WHERE workspace_id IN (?) ORDER BY joined_at"),
    invitations: inWorkspaces("SELECT id, workspace_id, email, role, status, invited_by, created_at, expires_at, accepted_at FROM invitations WHERE workspace_id IN (?) ORDER BY created_at"),
    share_links: inWorkspaces("SELECT id, workspace_id, role, uses, max_uses, expires_at, created_at, revoked_at FROM share_links WHERE workspace_id IN (?) ORDER BY created_at"),
    outbound_webhooks: inWorkspaces("SELECT id, workspace_id, url, events, active, description, created_at, updated_at FROM outbound_webhooks WHERE workspace_id IN (?) ORDER BY created_at"),
    pages: inWorkspaces("SELECT id AS page_id, workspace_id, path, title, description, tags, status, publish, content_hash, created_at, updated_at FROM pages WHERE workspace_id IN (?) AND deleted_at IS NULL ORDER BY workspace_id, path"),
    comments: inWorkspaces("SELECT id, workspace_id, page_path, parent_id, author_id, author_name, body, resolved, created_at, updated_at FROM comments WHERE workspace_id IN (?) ORDER BY created_at"),
  };
}
