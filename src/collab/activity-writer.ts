import type { Db } from "../db/database.ts";
import { ulid } from "../core/ids.ts";

/**
 * Inserts one row of the activity feed (the ledger's `activity` table, same columns as its own
 * writer). Call inside the transaction of the change it records.
 */
export function recordActivity(
  db: Db,
  entry: {
    workspaceId: string;
    action: string;
    actorId: string | null;
    actorName: string;
    pageId: string | null;
    pagePath: string | null;
    details: Record<string, unknown>;
    now: string;
  },
): string {
  const id = ulid();
  db.query(
    `INSERT INTO activity (id, workspace_id, action, actor_id, actor_name, page_id, page_path, details, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, entry.workspaceId, entry.action, entry.actorId, entry.actorName, entry.pageId, entry.pagePath, JSON.stringify(entry.details), entry.now);
  return id;
}
