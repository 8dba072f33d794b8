import type { z } from "zod";
import type { Db } from "../db/database.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";
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
  constructor(private readonly deps: { db: Db; permissions: Permissions }) {}

  list(principal: Principal, ref: string, query: unknown): Page {
    const q = parseInput(activityQuery, query);
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const where = ["workspace_id = ?"];
    const args: string[] = [workspace.id];
    if (q.action !== undefined) {
      where.push("action = ?");
      args.push(q.action);
    }
    return this.page(where, args, q.limit, q.cursor);
  }

  /** One page's history, following the page across moves through its page_id when it still exists. */
  forPage(principal: Principal, ref: string, query: unknown): Page {
    const q = parseInput(pageActivityQuery, query);
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const path = normalizePagePath(q.page, "page");
    const pageId = this.deps.db
      .query<{ id: string }, [string, string]>("SELECT id FROM pages WHERE workspace_id = ? AND path = ? AND deleted_at IS NULL")
      .get(workspace.id, path)?.id;
    const where = ["workspace_id = ?", pageId ? "(page_id = ? OR page_path = ?)" : "page_path = ?"];
    const args = pageId ? [workspace.id, pageId, path] : [workspace.id, path];
    return this.page(where, args, q.limit, q.cursor);
  }

  private page(where: string[], args: string[], limit: number, cursor: string | undefined): Page {
    const before = decodeCursor(cursor);
    if (before) {
      where.push("id < ?");
      args.push(before);
    }
    const rows = this.deps.db
      .query<ActivityRow, string[]>(
        `SELECT id, action, actor_id, actor_name, page_id, page_path, details, created_at FROM activity
         WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ${limit + 1}`,
      )
      .all(...args);
    const items = rows.slice(0, limit).map(toJson);
    return { items, next_cursor: rows.length > limit ? encodeCursor(items[items.length - 1]!.id) : null };
  }
}
