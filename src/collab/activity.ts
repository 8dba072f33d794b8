import type { z } from "zod";
import type { Db } from "../db/database.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import type { PageVisibility } from "../access/restrictions/visibility.ts";
import { atLeast } from "../workspaces/roles.ts";
import { workspaceRef, type WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { EffectiveRole } from "../workspaces/roles.ts";
import { parseInput } from "../core/validate.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { normalizePagePath } from "../content/paths.ts";
import { type activityOutput, activityQuery, pageActivityQuery } from "./schemas.ts";

interface ActivityRow {
  id: string;
  action: string;
  actor_id: string | null;
  actor_name: string;
  page_id: string | null;
  page_path: string | null;
  details: string;
  created_at: string;
}

/** An activity entry as answered: the documented output schema's type. */
type ActivityJson = z.infer<typeof activityOutput>;

function safeDetails(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function toJson(row: ActivityRow): ActivityJson {
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse(row.details) as Record<string, unknown>;
  } catch {
    // a malformed row shows without details rather than breaking the feed
  }
  return {
    id: row.id,
    action: row.action,
    actor: { id: row.actor_id, name: row.actor_name },
    page_path: row.page_path,
    page_id: row.page_id,
    details,
    created_at: row.created_at,
  };
}

type Page = { items: ActivityJson[]; next_cursor: string | null };

/**
 * Reads of the activity feed the ledger and comments write. Newest first; the cursor is the last
 * id seen, so rows added meanwhile never shift a page. Read access to the workspace is required.
 */
export class ActivityFeed {
  constructor(private readonly deps: { db: Db; permissions: Permissions; restrictions: Restrictions }) {}

  list(principal: Principal, ref: string, query: unknown): Page {
    const q = parseInput(activityQuery, query);
    const { workspace, role } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const shown = this.shownTo(principal, workspace, role);
    const where = ["workspace_id = ?"];
    const args: string[] = [workspace.id];
    if (q.action !== undefined) {
      where.push("action = ?");
      args.push(q.action);
    }
    return this.page(where, args, q.limit, q.cursor, shown);
  }

  /**
   * Which entries the caller may see (docs/decisions/restricted-folders.md): none about a page they
   * cannot see (where it was then, or where it is now), and changes of access lists only to admins.
   */
  private shownTo(principal: Principal, workspace: WorkspaceRow, role: EffectiveRole): (row: ActivityRow) => boolean {
    const admin = atLeast(role, "admin");
    const vis = this.deps.restrictions.visibilityOf(principal, workspace, role);
    if (!vis.restricted) return admin ? () => true : (row) => row.action !== "access_changed";
    return (row) => row.action !== "access_changed" && this.visibleRow(workspace.id, row, vis);
  }

  private visibleRow(workspaceId: string, row: ActivityRow, vis: PageVisibility): boolean {
    if (row.page_path !== null && !vis.sees(row.page_path)) return false;
    for (const key of ["old_path", "new_path", "moved_from", "moved_to"]) {
      const value = (row.details.includes(key) ? safeDetails(row.details)[key] : undefined) as unknown;
      if (typeof value === "string" && value.endsWith(".md") && !vis.sees(value)) return false;
    }
    if (row.page_id === null) return true;
    const now = this.deps.db
      .query<{ path: string }, [string, string]>("SELECT path FROM pages WHERE id = ? AND workspace_id = ? AND deleted_at IS NULL")
      .get(row.page_id, workspaceId)?.path;
    return now === undefined || vis.sees(now);
  }

  /** One page's history, following the page across moves through its page_id when it still exists. */
  forPage(principal: Principal, ref: string, query: unknown): Page {
    const q = parseInput(pageActivityQuery, query);
    const { workspace, role } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const shown = this.shownTo(principal, workspace, role);
    const path = normalizePagePath(q.page, "page");
    const pageId = this.deps.db
      .query<{ id: string }, [string, string]>("SELECT id FROM pages WHERE workspace_id = ? AND path = ? AND deleted_at IS NULL")
      .get(workspace.id, path)?.id;
    const where = ["workspace_id = ?", pageId ? "(page_id = ? OR page_path = ?)" : "page_path = ?"];
    const args = pageId ? [workspace.id, pageId, path] : [workspace.id, path];
    return this.page(where, args, q.limit, q.cursor, shown);
  }

  /** A page of entries the caller may see; entries left out are read past, so a page is full while more remain. */
  private page(where: string[], args: string[], limit: number, cursor: string | undefined, shown: (row: ActivityRow) => boolean): Page {
    let before = decodeCursor(cursor);
    const out: ActivityRow[] = [];
    const batch = limit + 1;
    for (;;) {
      const clauses = before ? [...where, "id < ?"] : where;
      const rows = this.deps.db
        .query<ActivityRow, string[]>(
          `SELECT id, action, actor_id, actor_name, page_id, page_path, details, created_at FROM activity
           WHERE ${clauses.join(" AND ")} ORDER BY id DESC LIMIT ${batch}`,
        )
        .all(...(before ? [...args, before] : args));
      for (const row of rows) if (shown(row)) out.push(row);
      if (out.length > limit || rows.length < batch) break;
      before = rows[rows.length - 1]!.id;
    }
    const items = out.slice(0, limit).map(toJson);
    return { items, next_cursor: out.length > limit ? encodeCursor(items[items.length - 1]!.id) : null };
  }
}
