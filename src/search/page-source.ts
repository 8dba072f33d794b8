import { readFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import type { Db } from "../db/database.ts";
import type { PageSnapshot } from "../core/event-bus.ts";
import { splitFile } from "../content/frontmatter.ts";

interface PageRow {
  id: string;
  path: string;
  title: string;
  description: string | null;
  tags: string | null;
  content_hash: string | null;
}

/**
 * Reads pages for (re)building an index when the index file does not hold the workspace: the
 * live rows of the ledger's `pages` table, each body read from its file under
 * `{DATA_DIR}/workspaces/{id}/`. Until the ledger's table exists there is simply nothing to read.
 */
export class PageSource {
  constructor(
    private readonly db: Db,
    private readonly dataDir: string,
  ) {}

  /** page_id → content_hash of every live page; null when the ledger has no pages table yet. */
  stamps(workspaceId: string): Map<string, string> | null {
    try {
      const rows = this.db
        .query<{ id: string; content_hash: string | null }, [string]>(
          "SELECT id, content_hash FROM pages WHERE workspace_id = ? AND deleted_at IS NULL",
        )
        .all(workspaceId);
      return new Map(rows.map((r) => [r.id, r.content_hash ?? ""]));
    } catch {
      return null;
    }
  }

  stampOf(pageId: string): string {
    try {
      return this.db.query<{ h: string | null }, [string]>("SELECT content_hash AS h FROM pages WHERE id = ?").get(pageId)?.h ?? "";
    } catch {
      return "";
    }
  }

  /** Snapshots of some live pages (ids of pages deleted meanwhile are left out), read one file at a time. */
  *snapshotsById(workspaceId: string, ids: string[]): Generator<PageSnapshot & { stamp: string }> {
    if (ids.length === 0) return;
    let rows: PageRow[];
    try {
      rows = this.db
        .query<PageRow, [string, string]>(
          `SELECT id, path, title, description, tags, content_hash FROM pages
           WHERE workspace_id = ? AND deleted_at IS NULL AND id IN (SELECT value FROM json_each(?))`,
        )
        .all(workspaceId, JSON.stringify(ids));
    } catch {
      return;
    }
    const root = resolve(this.dataDir, "workspaces", workspaceId);
    for (const row of rows) yield snapshotOf(root, row);
  }
}

function snapshotOf(root: string, row: PageRow): PageSnapshot & { stamp: string } {
  return {
    page_id: row.id,
    path: row.path,
    title: row.title,
    description: row.description ?? "",
    tags: parseTags(row.tags),
    body: readBody(root, row.path),
    stamp: row.content_hash ?? "",
  };
}

function parseTags(value: string | null): string[] {
  if (!value) return [];
  try {
    const tags = JSON.parse(value);
    return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}

/** The Markdown body of a page file; "" when the file is unreadable or outside the workspace. */
function readBody(root: string, path: string): string {
  const file = resolve(join(root, path));
  if (!file.startsWith(root + sep)) return "";
  try {
    // The ledger's own split (no YAML parsing: only the body is indexed from the file).
    return splitFile(readFileSync(file, "utf8")).body;
  } catch {
    return "";
  }
}
