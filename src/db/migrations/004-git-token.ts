/**
 * A workspace's stored HTTPS token for its git remote. Its own table (not a `workspaces` column)
 * so the token never rides along in a workspace row read with `SELECT *`: only the git transport
 * and the settings write reach it, and no API ever returns it.
 */
export const sql = /* sql */ `
CREATE TABLE workspace_git_tokens (
  workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  token TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`;
