import type { z } from "zod";
import type { workspaceOutput } from "./workspace-schemas.ts";
import type { Db } from "../db/database.ts";
import { randomBytes } from "node:crypto";
import { isUlid, ulid } from "../core/ids.ts";
import type { EffectiveRole } from "./roles.ts";
import { workspaceRights } from "./rights.ts";
import { WorkspaceProblems, type WorkspaceProblem } from "./workspace-problems.ts";

export interface WorkspaceRow {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  description: string;
  git_remote: string | null;
  git_branch: string;
  git_auto_commit: number;
  sync_interval: number;
  sync_status: string;
  editor_can_create_pages: number;
  editor_can_delete_pages: number;
  published: number;
  settings: string;
  webhook_secret: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** Columns an admin sets through the workspace settings (the rest of the settings is JSON). */
export const SETTINGS_COLUMNS = [
  "name",
  "description",
  "git_branch",
  "git_auto_commit",
  "sync_interval",
  "editor_can_create_pages",
  "editor_can_delete_pages",
  "published",
] as const;

/** Columns a service may change through `update`; the names are fixed here, never taken from input. */
const EDITABLE_COLUMNS = [
  ...SETTINGS_COLUMNS,
  "settings",
  "sync_status",
  "webhook_secret",
] as const;
type EditableColumn = (typeof EDITABLE_COLUMNS)[number];

/** Routes address a workspace by ULID or by slug; slugs are lowercase, so the two never collide. */
export function workspaceRef(idOrSlug: string): { id: string } | { slug: string } {
  return isUlid(idOrSlug) ? { id: idOrSlug } : { slug: idOrSlug };
}

/** The git and editor-rights columns as JSON: part of both a workspace and its admin settings. */
interface WorkspaceOptionsJson {
  git_remote: string | null;
  git_branch: string;
  git_auto_commit: boolean;
  sync_interval: number;
  sync_status: string;
  editor_can_create_pages: boolean;
  editor_can_delete_pages: boolean;
}

export function workspaceOptionsJson(row: WorkspaceRow): WorkspaceOptionsJson {
  return {
    git_remote: stripCredentials(row.git_remote),
    git_branch: row.git_branch,
    git_auto_commit: row.git_auto_commit === 1,
    sync_interval: row.sync_interval,
    sync_status: row.sync_status,
    editor_can_create_pages: row.editor_can_create_pages === 1,
    editor_can_delete_pages: row.editor_can_delete_pages === 1,
  };
}

/** A workspace as answered: the documented output schema's type, so the two cannot differ. */
export type WorkspaceJson = z.infer<typeof workspaceOutput>;

/** A remote URL as shown to people: user info (tokens, passwords) removed. */
function stripCredentials(url: string | null): string | null {
  if (url === null) return null;
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = "";
      u.password = "";
    }
    return u.toString();
  } catch {
    // scp-like SSH form (git@host:path) carries no secret beyond the user name
    return url;
  }
}

export class WorkspaceRecords {
  private readonly problems: WorkspaceProblems;

  constructor(private readonly db: Db) {
    this.problems = new WorkspaceProblems(db);
  }

  byId(id: string): WorkspaceRow | null {
    return this.db
      .query<WorkspaceRow, [string]>("SELECT * FROM workspaces WHERE id = ? AND deleted_at IS NULL")
      .get(id);
  }

  bySlug(slug: string): WorkspaceRow | null {
    return this.db
      .query<WorkspaceRow, [string]>("SELECT * FROM workspaces WHERE slug = ? AND deleted_at IS NULL")
      .get(slug);
  }

  slugTaken(slug: string): boolean {
    return this.bySlug(slug) !== null;
  }

  /** Inserts a workspace row; call inside the caller's transaction. */
  insert(input: {
    orgId: string;
    name: string;
    slug: string;
    description?: string;
    gitRemote?: string | null;
    gitBranch?: string;
    createdBy: string | null;
    now: string;
  }): WorkspaceRow {
    const id = ulid();
    this.db
      .query(
        `INSERT INTO workspaces (id, org_id, name, slug, description, git_remote, git_branch, webhook_secret, created_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.orgId,
        input.name,
        input.slug,
        input.description ?? "",
        input.gitRemote ?? null,
        input.gitBranch ?? "main",
        randomBytes(32).toString("hex"),
        input.createdBy,
        input.now,
        input.now,
      );
    return this.byId(id)!;
  }

  /** Live workspaces the user can reach: member rows plus every workspace of an org they are Super Admin of. */
  listReachableBy(userId: string, opts: { onlyId: string | null; afterId: string | null; limit: number }): WorkspaceRow[] {
    return this.db
      .query<WorkspaceRow, [string, string, string | null, string | null, string | null, string | null, number]>(
        `SELECT w.* FROM workspaces w
          WHERE w.deleted_at IS NULL
            AND (EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = w.id AND m.user_id = ?)
                 OR EXISTS (SELECT 1 FROM org_members o WHERE o.org_id = w.org_id AND o.user_id = ? AND o.role = 'super_admin'))
            AND (? IS NULL OR w.id = ?)
            AND (? IS NULL OR w.id > ?)
          ORDER BY w.id
          LIMIT ?`,
      )
      .all(userId, userId, opts.onlyId, opts.onlyId, opts.afterId, opts.afterId, opts.limit);
  }

  /** Writes the given columns (already validated) and bumps updated_at; call inside a transaction. */
  update(id: string, columns: Partial<Pick<WorkspaceRow, EditableColumn>>, now: string): void {
    const names = Object.keys(columns).filter((k): k is EditableColumn => (EDITABLE_COLUMNS as readonly string[]).includes(k));
    const sets = [...names.map((n) => `${n} = ?`), "updated_at = ?"].join(", ");
    const values = [...names.map((n) => columns[n] as string | number | null), now, id];
    this.db.query(`UPDATE workspaces SET ${sets} WHERE id = ? AND deleted_at IS NULL`).run(...values);
  }

  /** Soft delete: the row stays (recoverable), the slug becomes free for a new workspace. */
  softDelete(id: string, now: string): boolean {
    return this.db.query("UPDATE workspaces SET deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL").run(now, now, id).changes === 1;
  }

  memberCount(workspaceId: string): number {
    return (
      this.db
        .query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM workspace_members WHERE workspace_id = ?")
        .get(workspaceId)?.n ?? 0
    );
  }

  toJson(row: WorkspaceRow, role: EffectiveRole | null, pageCount = 0): WorkspaceJson {
    return {
      id: row.id,
      org_id: row.org_id,
      name: row.name,
      slug: row.slug,
      description: row.description,
      role,
      rights: workspaceRights(role, row),
      ...workspaceOptionsJson(row),
      published: row.published === 1,
      page_count: pageCount,
      member_count: this.memberCount(row.id),
      created_at: row.created_at,
      deleted_at: row.deleted_at,
      problems: this.problems.of(row.id),
    };
  }
}
