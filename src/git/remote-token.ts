import { z } from "zod";
import type { Db } from "../db/database.ts";

/**
 * The write-only HTTPS token of a workspace's git remote (GitHub/GitLab personal or project
 * access token, Bitbucket access token). Set or cleared through the workspace settings
 * (`git_token`, null clears), used as the basic-auth password for clone, fetch and push, shown
 * nowhere: responses carry only `git_token_set`.
 */
export const gitTokenInput = z
  .string()
  .min(1, "must not be empty (send null to clear the token)")
  .max(4096, "must be at most 4096 characters")
  .refine((t) => !/[\s\u0000-\u001f\u007f]/.test(t), "must not contain spaces or control characters");

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
