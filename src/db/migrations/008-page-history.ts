/**
 * Page history (docs/decisions/page-history.md): a per-page index of the git history, so a page's versions are one
 * indexed query instead of a walk over every commit (docs/decisions/page-history.md).
 */
export const sql = /* sql */ `
CREATE TABLE page_versions (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  commit_id TEXT NOT NULL,
  path TEXT NOT NULL,                  -- the file's path after the commit (before it, for a deletion)
  old_path TEXT,                       -- a rename: the path before the commit
  page_id TEXT,                        -- the frontmatter id the file held (NULL: none)
  change TEXT NOT NULL CHECK (change IN ('added', 'modified', 'deleted', 'renamed')),
  blob TEXT,                           -- the file's blob after the commit (NULL: deleted)
  before_blob TEXT,                    -- the blob before it (NULL: added)
  author_name TEXT NOT NULL,
  author_email TEXT NOT NULL,
  at INTEGER NOT NULL,                 -- author time, seconds since the epoch
  rank INTEGER NOT NULL,               -- ancestry order, breaks ties between commits of one second
  message TEXT NOT NULL,
  channel TEXT NOT NULL,               -- web, api, mcp, git, restore, recovery, import
  added INTEGER NOT NULL DEFAULT 0,
  removed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, commit_id, path)
);
CREATE INDEX page_versions_page ON page_versions(workspace_id, page_id, at DESC, rank DESC, commit_id);
CREATE INDEX page_versions_path ON page_versions(workspace_id, path, at DESC, rank DESC);
CREATE INDEX page_versions_time ON page_versions(workspace_id, at DESC, rank DESC);

-- Every commit the index has read (merges and commits touching no page included).
CREATE TABLE history_commits (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  commit_id TEXT NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, commit_id)
) WITHOUT ROWID;

-- Commits still to read: the edge of a backfill (resumable) and new heads not yet indexed.
CREATE TABLE history_frontier (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  commit_id TEXT NOT NULL,
  at INTEGER NOT NULL,                 -- when it was queued: newest first
  child_rank INTEGER,                  -- the lowest rank of the indexed commits that named it as a parent
  PRIMARY KEY (workspace_id, commit_id)
) WITHOUT ROWID;
`;
