/** Comments on pages. Threads are one level deep: a reply's parent is always the thread's root. */
export const sql = /* sql */ `
CREATE TABLE comments (
  id TEXT PRIMARY KEY,                 -- ULID: sorts by creation time
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  page_path TEXT NOT NULL,             -- the page as addressed when commenting (comments outlive moves by path)
  page_id TEXT,                        -- the page's id when it existed at the time
  parent_id TEXT REFERENCES comments(id) ON DELETE CASCADE,
  author_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  author_name TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL,
  mentions TEXT NOT NULL DEFAULT '[]', -- JSON array of user ids
  anchor TEXT,                         -- optional quoted text the comment is about
  resolved INTEGER NOT NULL DEFAULT 0, -- meaningful on thread roots
  resolved_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  resolved_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX comments_page ON comments(workspace_id, page_path, id);
CREATE INDEX comments_workspace ON comments(workspace_id, id);
CREATE INDEX comments_parent ON comments(parent_id);
`;
