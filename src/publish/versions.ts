import type { Db } from "../db/database.ts";
import type { SiteVersion } from "./site/model.ts";

interface VersionRow {
  workspace_id: string;
  slug: string;
  name: string;
  base_path: string;
  is_default: number;
  created_at: string;
}

const toVersion = (r: VersionRow): SiteVersion => ({
  slug: r.slug,
  name: r.name,
  base_path: r.base_path,
  is_default: r.is_default === 1,
  created_at: r.created_at,
});

/** Named documentation versions (docs/architecture.md §9): plain SQL; SiteService decides who may do what. */
export class DocVersions {
  constructor(private readonly db: Db) {}

  list(workspaceId: string): SiteVersion[] {
    return this.db
      .query<VersionRow, [string]>("SELECT * FROM doc_versions WHERE workspace_id = ? ORDER BY is_default DESC, created_at DESC, slug")
      .all(workspaceId)
      .map(toVersion);
  }

  get(workspaceId: string, slug: string): SiteVersion | null {
    const row = this.db.query<VersionRow, [string, string]>("SELECT * FROM doc_versions WHERE workspace_id = ? AND slug = ?").get(workspaceId, slug);
    return row ? toVersion(row) : null;
  }

  /** Inserts; one asked to be the default takes over from the previous one. Call inside a transaction. */
  insert(workspaceId: string, v: SiteVersion): void {
    if (v.is_default) this.db.query("UPDATE doc_versions SET is_default = 0 WHERE workspace_id = ?").run(workspaceId);
    this.db
      .query("INSERT INTO doc_versions (workspace_id, slug, name, base_path, is_default, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(workspaceId, v.slug, v.name, v.base_path, v.is_default ? 1 : 0, v.created_at);
  }

  setDefault(workspaceId: string, slug: string): void {
    this.db.transaction(() => {
      this.db.query("UPDATE doc_versions SET is_default = 0 WHERE workspace_id = ?").run(workspaceId);
      this.db.query("UPDATE doc_versions SET is_default = 1 WHERE workspace_id = ? AND slug = ?").run(workspaceId, slug);
    })();
  }

  /** Deletes a version record (its pages stay in the workspace); without a default the site's root shows the current docs. */
  delete(workspaceId: string, slug: string): boolean {
    return this.db.query("DELETE FROM doc_versions WHERE workspace_id = ? AND slug = ?").run(workspaceId, slug).changes > 0;
  }
}
