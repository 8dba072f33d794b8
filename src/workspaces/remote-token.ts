import type { Db } from "../db/database.ts";


export function readGitToken(db: Db, workspaceId: string): string | null {
  return db.query<{ token: string }, [string]>("SELECT token FROM workspace_git_tokens WHERE workspace_id = ?").get(workspaceId)?.token ?? null;
}

export function hasGitToken(db: Db, workspaceId: string): boolean {
  return db.query("SELECT 1 FROM workspace_git_tokens WHERE workspace_id = ?").get(workspaceId) !== null;
}

/** Stores (or with null, removes) the token; call inside the caller's transaction. */
export function writeGitToken(db: Db, workspaceId: string, token: string | null, now: string): void {
  if (token === null) {
    db.query("DELETE FROM workspace_git_tokens WHERE workspace_id = ?").run(workspaceId);
    return;
  }
  db.query(
    `INSERT INTO workspace_git_tokens (workspace_id, token, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(workspace_id) DO UPDATE SET token = excluded.token, updated_at = excluded.updated_at`,
  ).run(workspaceId, token, now);
}
