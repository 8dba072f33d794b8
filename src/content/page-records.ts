import type { z } from "zod";
import type { Db } from "../db/database.ts";
import type { PageMeta } from "./page-file.ts";
import type { pageOutput } from "./schemas.ts";

/** The SQL side of pages. Plain statements; the ledger decides when and inside which transaction. */
export interface PageRow {
  id: string;
  workspace_id: string;
  path: string;
  title: string;
  description: string;
  tags: string;
  status: string;
  publish: number;
  nav_order: number | null;
  sort_order: number | null;
  content_hash: string;
  frontmatter_hash: string;
  created_by: string | null;
  updated_by: string | null;
  updated_by_name: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** The file's stat as the last reconcile pass read it (page-file-stat.ts); null: read it next time. */
  file_stat: string | null;
}

/** The page object of docs/interfaces.md §9 without its problems (the ledger adds them): the documented output schema's type. */
export type PageJson = Omit<z.infer<typeof pageOutput>, "problems">;

export const SOFT_DELETE_KEEP_MS = 24 * 60 * 60 * 1000;

export function pageJson(row: PageRow, extra: { content?: string; frontmatter?: Record<string, unknown> } = {}): PageJson {
  return {
    page_id: row.id,
    path: row.path,
    title: row.title,
    description: row.description,
    ...(extra.content !== undefined ? { content: extra.content } : {}),
    content_hash: row.content_hash,
    frontmatter_hash: row.frontmatter_hash,
    ...(extra.frontmatter !== undefined ? { frontmatter: extra.frontmatter } : {}),
    tags: parseTags(row.tags),
    status: row.status,
    publish: row.publish === 1,
    nav_order: row.nav_order,
    sort_order: row.sort_order,
    created_at: row.created_at,
    updated_at: row.updated_at,
    updated_by: row.updated_by || row.updated_by_name ? { id: row.updated_by, name: row.updated_by_name ?? "" } : null,
  };
}

function parseTags(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}

export interface RecordWrite {
  meta: PageMeta;
  path: string;
  contentHash: string;
  frontmatterHash: string;
  actorId: string | null;
  actorName: string;
  now: string;
  /**
   * The stat the file had before it was read (page-file-stat.ts), when a reconcile pass read it
   * and may trust it; absent for Quire's own writes, which clear it (the next start reads the file).
   */
  fileStat?: string | null;
}

/**
 * The values a page's file decides, in the column order both `insert` and `update` list them:
 * path, title, description, tags, status, publish, nav_order, content_hash, frontmatter_hash.
 */
function fileColumns(w: RecordWrite): [string, string, string, string, string, number, number | null, string, string] {
  const { meta } = w;
  return [w.path, meta.title, meta.description, JSON.stringify(meta.tags), meta.status, meta.publish ? 1 : 0, meta.navOrder, w.contentHash, w.frontmatterHash];
}

export class PageRecords {
  constructor(private readonly db: Db) {}

  live(workspaceId: string, path: string): PageRow | null {
    return this.db
      .query<PageRow, [string, string]>("SELECT * FROM pages WHERE workspace_id = ? AND path = ? AND deleted_at IS NULL")
      .get(workspaceId, path);
  }

  /**
   * The live page at `path` when `wanted`, else null, after the same index lookup either way: a
   * page hidden from the reader is sought like any other and then dropped inside the query, so no
   * record is built for it, exactly as none is for a path with no page (the two answers cost the
   * same: docs/decisions/restricted-folders.md). The second term of the OR is never true; it reads
   * the index entry's rowid (a column the lookup does not fix: `path` would be replaced by the bound
   * value), so the query planner cannot answer `wanted = 0` before the lookup, and the table row
   * itself is never read for a hidden page.
   */
  liveIf(workspaceId: string, path: string, wanted: boolean): PageRow | null {
    return this.db
      .query<PageRow, [string, string, number]>("SELECT * FROM pages WHERE workspace_id = ?1 AND path = ?2 AND deleted_at IS NULL AND (?3 OR rowid < 0)")
      .get(workspaceId, path, wanted ? 1 : 0);
  }

  byId(id: string): PageRow | null {
    return this.db.query<PageRow, [string]>("SELECT * FROM pages WHERE id = ?").get(id);
  }

  /** Whether a live page's path starts with `prefix` (a folder ending in `/`). */
  anyLiveUnder(workspaceId: string, prefix: string): boolean {
    return (
      this.db
        .query<{ n: number }, [string, string, string]>("SELECT 1 AS n FROM pages WHERE workspace_id = ? AND path >= ? AND path < ? AND deleted_at IS NULL LIMIT 1")
        .get(workspaceId, prefix, prefix + "\uffff") !== null
    );
  }

  liveIn(workspaceId: string): PageRow[] {
    return this.db
      .query<PageRow, [string]>("SELECT * FROM pages WHERE workspace_id = ? AND deleted_at IS NULL")
      .all(workspaceId);
  }

  /**
   * Changes whenever any connection commits to the database: this connection's own row changes
   * (`total_changes()`) and everyone else's commits (`PRAGMA data_version`). What is derived from
   * the records may be kept while it stays the same.
   */
  changeMark(): string {
    const own = this.db.query<{ n: number }, []>("SELECT total_changes() AS n").get()!.n;
    const others = this.db.query<{ data_version: number }, []>("PRAGMA data_version").get()!.data_version;
    return `${own}:${others}`;
  }

  liveCount(workspaceId: string): number {
    return (
      this.db
        .query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM pages WHERE workspace_id = ? AND deleted_at IS NULL")
        .get(workspaceId)?.n ?? 0
    );
  }

  /** Live pages of every live workspace of the instance (the `quire_pages` gauge). */
  liveCountAll(): number {
    return (
      this.db
        .query<{ n: number }, []>(
          "SELECT COUNT(*) AS n FROM pages p JOIN workspaces w ON w.id = p.workspace_id WHERE p.deleted_at IS NULL AND w.deleted_at IS NULL",
        )
        .get()?.n ?? 0
    );
  }

  /** Live records plus those soft-deleted since `since` (ISO), for reconciliation. */
  recoverable(workspaceId: string, since: string): PageRow[] {
    return this.db
      .query<PageRow, [string, string]>(
        "SELECT * FROM pages WHERE workspace_id = ? AND (deleted_at IS NULL OR deleted_at >= ?)",
      )
      .all(workspaceId, since);
  }

  insert(id: string, workspaceId: string, w: RecordWrite): void {
    this.db
      .query(
        `INSERT INTO pages (id, workspace_id, path, title, description, tags, status, publish, nav_order, content_hash,
           frontmatter_hash, created_by, updated_by, updated_by_name, created_at, updated_at, file_stat)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, workspaceId, ...fileColumns(w), w.actorId, w.actorId, w.actorName, w.now, w.now, w.fileStat ?? null);
  }

  /** Updates a record from its file (and undeletes it: a file exists for it). */
  update(id: string, w: RecordWrite): void {
    this.db
      .query(
        `UPDATE pages SET path = ?, title = ?, description = ?, tags = ?, status = ?, publish = ?, nav_order = ?,
           content_hash = ?, frontmatter_hash = ?, updated_by = ?, updated_by_name = ?, updated_at = ?, deleted_at = NULL, file_stat = ?
         WHERE id = ?`,
      )
      .run(...fileColumns(w), w.actorId, w.actorName, w.now, w.fileStat ?? null, id);
  }

  /** Records the stat a reconcile pass read a record's unchanged file with (page-file-stat.ts). */
  setFileStat(id: string, fileStat: string | null): void {
    this.db.query("UPDATE pages SET file_stat = ? WHERE id = ?").run(fileStat, id);
  }

  /** Path → id and recorded stat of the live pages whose file's stat is known (the start-up pass skips those unchanged). */
  fileStats(workspaceId: string): Map<string, { id: string; stat: string }> {
    const rows = this.db
      .query<{ id: string; path: string; file_stat: string }, [string]>(
        "SELECT id, path, file_stat FROM pages WHERE workspace_id = ? AND deleted_at IS NULL AND file_stat IS NOT NULL",
      )
      .all(workspaceId);
    return new Map(rows.map((r) => [r.path, { id: r.id, stat: r.file_stat }]));
  }

  /**
   * Moves a record out of the way of the unique live path while several records swap paths; a
   * page path never starts with '/', so the parked value collides with nothing.
   */
  park(id: string): void {
    this.db.query("UPDATE pages SET path = '/' || id WHERE id = ?").run(id);
  }

  softDelete(id: string, now: string, actorId: string | null, actorName: string): void {
    this.db
      .query("UPDATE pages SET deleted_at = ?, updated_by = ?, updated_by_name = ? WHERE id = ?")
      .run(now, actorId, actorName, id);
  }

  setSortOrder(id: string, sortOrder: number): void {
    this.db.query("UPDATE pages SET sort_order = ? WHERE id = ?").run(sortOrder, id);
  }

  /** Forgets soft-deleted records older than the recovery window. */
  purgeDeleted(workspaceId: string, before: string): number {
    return this.db
      .query("DELETE FROM pages WHERE workspace_id = ? AND deleted_at IS NOT NULL AND deleted_at < ?")
      .run(workspaceId, before).changes;
  }
}
