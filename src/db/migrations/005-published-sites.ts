/**
 * Published sites: named documentation versions, custom domains with their DNS verification,
 * and the redirects page moves leave behind (the hand-written ones live in .quire/redirects.yaml).
 */
export const sql = /* sql */ `
CREATE TABLE doc_versions (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  base_path TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, slug)
);

CREATE TABLE custom_domains (
  workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  domain TEXT NOT NULL UNIQUE,
  token TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'verified', 'failed')),
  last_error TEXT,
  checked_at TEXT,
  verified_at TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE site_redirects (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  from_key TEXT NOT NULL,
  to_key TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, from_key)
);
`;
