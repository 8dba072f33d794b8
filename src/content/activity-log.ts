import type { Db } from "../db/database.ts";
import { ulid } from "../core/ids.ts";

/**
 * Writes rows of the workspace activity feed. Call inside the transaction of the change it
 * records, so the feed never shows a change that did not happen (or misses one that did).
 * Reading the feed belongs to src/collab/.
 */
type ActivityAction =
  | "page_created"
  | "page_updated"
  | "page_deleted"
  | "page_moved"
  | (string & {});

interface ActivityEntry {
  workspaceId: string;
  action: ActivityAction;
  actorId: string | null;
  actorName: string;
  pageId?: string | null;
  pagePath?: string | null;
  details?: Record<string, unknown>;
  now: string;
}

export class ActivityLog {
  constructor(private readonly db: Db) {}

  record(entry: ActivityEntry): string {
    const id = ulid();
    this.db
      .query(
        `INSERT INTO activity (id, workspace_id, action, actor_id, actor_name, page_id, page_path, details, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        entry.workspaceId,
        entry.action,
        entry.actorId,
        entry.actorName,
        entry.pageId ?? null,
        entry.pagePath ?? null,
        JSON.stringify(entry.details ?? {}),
        entry.now,
      );
    return id;
  }
}
