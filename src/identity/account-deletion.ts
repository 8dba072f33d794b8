/**
 * Deleting one's own account (docs/interfaces.md §3: `DELETE /api/v1/users/me`, Cloud, password-gated;
 * docs/decisions/account-deletion.md).
 *
 * Proof: the current password; an account without one (passkeys or external sign-in only) types
 * its email, from a session begun within the last FRESH_SIGN_IN_MS. Refused, changing nothing,
 * while the person is the only Super Admin of an organization where anyone else works: they hand
 * it over first. Otherwise gone at once: the account, its sessions and refresh tokens (so access
 * tokens stop with them), API keys, passkeys, linked identities, memberships, and every
 * organization where they were alone, with its workspaces — all in one transaction, so a failure
 * changes nothing. Only after the commit: open WebSockets are closed, the workspace service's
 * hooks let git, the file watch, analytics and published sites go as usual, and the search
 * indexes and folders are erased (no row is left to recover them from). What they wrote in other
 * people's workspaces stays, signed "Deleted user".
 */
import { rmSync } from "node:fs";
import type { Db } from "../db/database.ts";
import type { Users } from "./users.ts";
import type { Sessions } from "./sessions.ts";
import type { PasswordHasher } from "./passwords.ts";
import type { Principal } from "../core/principal.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { Logger } from "../core/log.ts";
import { ForbiddenError, NotFoundError, ValidationError } from "../core/errors.ts";
import { parseInput } from "../core/validate.ts";
import { deleteAccountInput } from "./schemas.ts";

const DELETED_USER_NAME = "Deleted user";
const FRESH_SIGN_IN_MS = 10 * 60 * 1000;

interface AccountDeletionDeps {
  db: Db;
  users: Users;
  sessions: Sessions;
  passwords: PasswordHasher;
  /** The access layer's workspace service (above identity): a workspace left without its owner is forgotten. */
  workspaceService: { forget(workspace: WorkspaceRow, actorUserId: string): Promise<void> };
  /** Erases a deleted workspace's search index. */
  dropSearchIndex: (workspaceId: string) => void;
  /** The folder of a workspace's files ({DATA_DIR}/workspaces/{id}). */
  workspaceFolder: (workspaceId: string) => string;
  /** Waits for the writes and git work under way in a workspace and stops new ones, before its folder goes. */
  releaseFolder?: (workspaceId: string) => Promise<void>;
  /** Closes the person's open live connections (WebSockets) once the account is gone. */
  endConnections?: (userId: string) => void;
  log?: Logger;
}

export class AccountDeletion {
  constructor(private readonly deps: AccountDeletionDeps) {}

  async delete(principal: Extract<Principal, { kind: "session" }>, body: unknown, nowMs: number = Date.now()): Promise<{ deleted: true; organizations_deleted: number; workspaces_deleted: number }> {
    const { db, users, sessions } = this.deps;
    const input = parseInput(deleteAccountInput, body ?? {});
    const user = users.byId(principal.userId);
    if (!user) throw new NotFoundError("Account not found");
    await this.confirm(user, principal.sessionId, input, nowMs);

    const held = db
      .query<{ id: string; name: string; handle: string }, [string, string, string, string]>(
        `SELECT o.id, o.name, o.handle FROM organizations o JOIN org_members m ON m.org_id = o.id AND m.user_id = ? AND m.role = 'super_admin'
         WHERE NOT EXISTS (SELECT 1 FROM org_members s WHERE s.org_id = o.id AND s.role = 'super_admin' AND s.user_id <> ?)
           AND (EXISTS (SELECT 1 FROM org_members x WHERE x.org_id = o.id AND x.user_id <> ?)
             OR EXISTS (SELECT 1 FROM workspace_members wm JOIN workspaces w ON w.id = wm.workspace_id
                        WHERE w.org_id = o.id AND w.deleted_at IS NULL AND wm.user_id <> ?))
         ORDER BY o.name`,
      )
      .all(user.id, user.id, user.id, user.id);
    if (held.length > 0) {
      const names = held.map((o) => `${o.name} (${o.handle})`).join(", ");
      throw new ForbiddenError(
        `You are the Super Admin of ${names}, where other people work: make one of them Super Admin (or remove them) before deleting your account`,
      );
    }

    // Organizations where nobody else is (no other member, nobody in their live workspaces): they
    // go with the account. Read before the transaction only to know what the hooks and the disk
    // must let go of afterwards; the transaction deletes exactly these.
    const alone = db
      .query<{ id: string }, [string, string, string]>(
        `SELECT o.id FROM organizations o JOIN org_members m ON m.org_id = o.id AND m.user_id = ?
         WHERE NOT EXISTS (SELECT 1 FROM org_members x WHERE x.org_id = o.id AND x.user_id <> ?)
           AND NOT EXISTS (SELECT 1 FROM workspace_members wm JOIN workspaces w ON w.id = wm.workspace_id
                           WHERE w.org_id = o.id AND w.deleted_at IS NULL AND wm.user_id <> ?)`,
      )
      .all(user.id, user.id, user.id)
      .map((r) => r.id);
    const doomed: WorkspaceRow[] = alone.flatMap((orgId) =>
      db.query<WorkspaceRow, [string]>("SELECT * FROM workspaces WHERE org_id = ? ORDER BY id").all(orgId),
    );

    // Everything in the database at once: a failure anywhere leaves the account, its
    // organizations and their workspaces exactly as they were (the files are not touched yet).
    db.transaction(() => {
      db.query("UPDATE comments SET author_name = ? WHERE author_id = ?").run(DELETED_USER_NAME, user.id);
      db.query("UPDATE activity SET actor_name = ? WHERE actor_id = ?").run(DELETED_USER_NAME, user.id);
      db.query("UPDATE pages SET updated_by_name = ? WHERE updated_by = ?").run(DELETED_USER_NAME, user.id);
      db.query("DELETE FROM refresh_tokens WHERE user_id = ?").run(user.id);
      sessions.revokeAllOf(user.id);
      // Cascades: the workspaces' rows, pages' records, invitations, share links, webhooks, subscription.
      for (const orgId of alone) db.query("DELETE FROM organizations WHERE id = ?").run(orgId);
      // Cascades: memberships, API keys, passkeys, linked identities, reset links, onboarding.
      db.query("DELETE FROM users WHERE id = ?").run(user.id);
    })();

    // Committed. Live connections end now rather than at the next event they would have received.
    this.deps.endConnections?.(user.id);
    // Git sync, the file watch, analytics and published sites let go as for any deleted workspace;
    // then the search index and the folder, since no row is left to recover them from.
    for (const ws of doomed) {
      try {
        if (ws.deleted_at === null) await this.deps.workspaceService.forget(ws, user.id);
        this.deps.dropSearchIndex(ws.id);
        await this.deps.releaseFolder?.(ws.id);
        rmSync(this.deps.workspaceFolder(ws.id), { recursive: true, force: true });
      } catch (error) {
        // The account is gone either way (the answer says so); what could not be let go of is
        // reported, and the other workspaces are still cleaned up.
        this.deps.log?.warn("account deletion: workspace not fully cleaned up", { workspace_id: ws.id, folder: this.deps.workspaceFolder(ws.id), error });
      }
    }
    return { deleted: true, organizations_deleted: alone.length, workspaces_deleted: doomed.length };
  }

  private async confirm(
    user: { email: string; password_hash: string | null },
    sessionId: string,
    input: { password?: string | undefined; confirm_email?: string | undefined },
    nowMs: number,
  ): Promise<void> {
    if (user.password_hash !== null) {
      if (!input.password) throw new ValidationError("password: your current password is required to delete your account", "password");
      if (!(await this.deps.passwords.verify(user.password_hash, input.password))) {
        throw new ValidationError("password is not your current password", "password");
      }
      return;
    }
    const typed = input.confirm_email?.trim().toLowerCase();
    if (!typed || typed !== user.email.trim().toLowerCase()) {
      throw new ValidationError("confirm_email: type your account's email address to delete an account that has no password", "confirm_email");
    }
    const started = this.deps.db.query<{ created_at: string }, [string]>("SELECT created_at FROM sessions WHERE id = ?").get(sessionId)?.created_at;
    if (!started || nowMs - Date.parse(started) > FRESH_SIGN_IN_MS) {
      throw new ValidationError("Sign in again (within the last 10 minutes) before deleting your account", "session");
    }
  }
}
