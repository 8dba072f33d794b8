/**
 * Restricted folders and pages (docs/decisions/restricted-folders.md): each workspace's access
 * rules, the same rules `.quire/access.yaml` carries in the work tree. An `.quire/access.yaml`
 * pulled from git that is refused leaves these rows as they were (the last valid rules).
 */
export const sql = /* sql */ `
CREATE TABLE access_rules (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  path TEXT NOT NULL,                  -- a folder ending in '/', or a page's file path
  entries TEXT NOT NULL,               -- JSON: [{who, level}], who an email or group:admins|editors|everyone
  updated_at TEXT NOT NULL,
  updated_by TEXT,                     -- the user who set it (NULL: from git)
  PRIMARY KEY (workspace_id, path)
) WITHOUT ROWID;

-- The last .quire/access.yaml that was refused (why, and since when), shown in the sync status.
CREATE TABLE access_file_refusals (
  workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  problem TEXT NOT NULL,
  since TEXT NOT NULL
);
`;
