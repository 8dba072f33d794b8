/** The content ledger: one record per Markdown page (files are the truth) and the activity feed. */
export const sql = /* sql */ `
CREATE TABLE pages (
  id TEXT PRIMARY KEY,                 -- page_id: the frontmatter id, stable across moves
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  path TEXT NOT NULL,                  -- relative, '/'-separated, ends in .md
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  tags TEXT NOT NULL DEFAULT '[]',     -- JSON array of strings
  status TEXT NOT NULL DEFAULT 'draft',
  publish INTEGER NOT NULL DEFAULT 0,
  nav_order INTEGER,
  sort_order INTEGER,                  -- set by reorder; NULL sorts after every set value
  content_hash TEXT NOT NULL,
  frontmatter_hash TEXT NOT NULL,
  created_by TEXT,
  updated_by TEXT,
  updated_by_name TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT                      -- soft delete: kept 24 h so a moved file can be recovered
);
-- One live page per path; soft-deleted records do not hold their path.
CREATE UNIQUE INDEX pages_live_path ON pages(workspace_id, path) WHERE deleted_at IS NULL;
CREATE INDEX pages_workspace ON pages(workspace_id, deleted_at);
CREATE INDEX pages_hash ON pages(workspace_id, content_hash);

CREATE TABLE activity (
  id TEXT PRIMARY KEY,                 -- ULID: sorts by time
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  action TEXT NOT NULL,                -- page_created, page_updated, page_deleted, page_moved, comment_added, ...
  actor_id TEXT,
  actor_name TEXT NOT NULL DEFAULT '',
  page_id TEXT,
  page_path TEXT,
  details TEXT NOT NULL DEFAULT '{}',  -- JSON object
  created_at TEXT NOT NULL
);
CREATE INDEX activity_workspace ON activity(workspace_id, id DESC);
CREATE INDEX activity_page ON activity(workspace_id, page_id, id DESC);
`;
