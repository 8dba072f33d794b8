import type { Db } from "../db/database.ts";
import type { Config } from "../config.ts";
import { ConflictError, NotFoundError, ValidationError } from "../core/errors.ts";
import { ulid } from "../core/ids.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import { checkPasswordRules, type PasswordHasher } from "../identity/passwords.ts";
import { isDuplicateEmailError, normalizeEmail, toUserJson, type UserJson, type Users } from "../identity/users.ts";
import { checkPasswordWithLockout } from "../identity/password-check.ts";
import type { Organizations } from "../identity/organizations.ts";
import type { AuthService, ClientInfo, IssuedTokens } from "../identity/auth-service.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { Members } from "./members.ts";
import type { z } from "zod";
import { acceptInvitationInput, type acceptedWorkspaceOutput } from "./schemas.ts";
import { invitationStatus, invitationTokenHash, type InvitationRow } from "./invitations.ts";

interface AcceptedInvitation {
  user: UserJson;
  /** null when the account exists but signing in failed (the client signs in separately). */
  tokens: IssuedTokens | null;
  /** true when accepting created the account. */
  created: boolean;
  workspace: z.infer<typeof acceptedWorkspaceOutput>;
}

/**
 * Accepting an invitation (public, by token). A new address gets an account and its own
 * organization, even in invite-only mode; an existing account must prove itself with its
 * password, and wrong passwords count toward the same lockout as login.
 */
export class InvitationAcceptance {
  constructor(
    private readonly deps: {
      db: Db;
      config: Config;
      users: Users;
      organizations: Organizations;
      passwords: PasswordHasher;
      auth: AuthService;
      members: Members;
      workspaces: WorkspaceRecords;
    },
  ) {}

  async accept(body: unknown, client: ClientInfo): Promise<AcceptedInvitation> {
    const { db, users, organizations, passwords, members, workspaces } = this.deps;
    const input = parseInput(acceptInvitationInput, body);
    const invitation = this.usable(input.token);
    const workspace = workspaces.byId(invitation.workspace_id);
    if (!workspace) throw new NotFoundError("This invitation is not valid");

    const existing = users.byEmail(invitation.email);
    let userId: string;
    let passwordHash: string | null = null;
    if (existing) {
      // Wrong passwords here count toward the same lockout as login.
      await checkPasswordWithLockout({ users, passwords, lock: this.deps.config.loginLock }, existing, input.password);
      userId = existing.id;
    } else {
      if (input.name === undefined) throw new ValidationError("name is required to create your account", "name");
      passwordHash = await passwords.hash(checkPasswordRules(input.password));
      userId = ulid();
    }

    const now = isoFromMs(nowMs());
    let joined: ReturnType<Members["joinWithoutDowngrade"]>;
    try {
      joined = db.transaction(() => {
        // Re-checked inside the write: a concurrent accept or revoke wins exactly once.
        const claimed = db
          .query("UPDATE invitations SET status = 'accepted', accepted_at = ? WHERE id = ? AND status = 'pending' AND expires_at > ?")
          .run(now, invitation.id, now).changes;
        if (claimed !== 1) throw new ValidationError("This invitation is no longer valid", "token", { reason: "used" });
        if (passwordHash !== null) {
          const name = input.name!;
          users.insert({ id: userId, name, email: invitation.email, passwordHash, now });
          organizations.createOwned({ name, ownerId: userId, now });
        }
        return members.joinWithoutDowngrade(workspace.id, userId, invitation.role, now);
      })();
    } catch (error) {
      if (isDuplicateEmailError(error)) {
        throw new ConflictError("An account with this email was created meanwhile; accept again with its password");
      }
      throw error;
    }
    if (joined.change) {
      members.notify({
        kind: joined.change,
        workspace_id: workspace.id,
        user_id: userId,
        role: joined.role,
        actor_id: userId,
        via: "invitation",
      });
    }
    const fresh = users.byId(userId)!;
    let tokens: IssuedTokens | null = null;
    try {
      tokens = await this.deps.auth.signIn(fresh, client);
    } catch {
      tokens = null; // as registration: the membership stands, the client signs in separately
    }
    return {
      user: toUserJson(fresh),
      tokens,
      created: passwordHash !== null,
      workspace: { id: workspace.id, slug: workspace.slug, name: workspace.name, role: joined.role },
    };
  }

  /** Whether a pending, unexpired invitation names this email (invite-only mode lets such a person in). */
  hasPendingFor(email: string): boolean {
    return (
      this.deps.db
        .query<{ n: number }, [string, string]>(
          "SELECT COUNT(*) AS n FROM invitations WHERE email_normalized = ? AND status = 'pending' AND expires_at > ?",
        )
        .get(normalizeEmail(email), isoFromMs(nowMs()))!.n > 0
    );
  }

  /**
   * Accepts every pending invitation for `email` on behalf of `userId`, whose provider verified
   * that address (an external sign-in): call inside the transaction that creates the account.
   * Returns what to announce once it has committed.
   */
  acceptPendingFor(userId: string, email: string, now: string): () => void {
    const { db, members } = this.deps;
    const rows = db
      .query<InvitationRow, [string, string]>("SELECT * FROM invitations WHERE email_normalized = ? AND status = 'pending' AND expires_at > ?")
      .all(normalizeEmail(email), now);
    const changes: Array<Parameters<Members["notify"]>[0]> = [];
    for (const row of rows) {
      db.query("UPDATE invitations SET status = 'accepted', accepted_at = ? WHERE id = ?").run(now, row.id);
      const joined = members.joinWithoutDowngrade(row.workspace_id, userId, row.role, now);
      if (joined.change) {
        changes.push({ kind: joined.change, workspace_id: row.workspace_id, user_id: userId, role: joined.role, actor_id: userId, via: "invitation" });
      }
    }
    return () => changes.forEach((c) => members.notify(c));
  }

  /** The invitation behind a token, or a clear refusal. */
  private usable(token: string): InvitationRow {
    const row = this.deps.db
      .query<InvitationRow, [string]>("SELECT * FROM invitations WHERE token_hash = ?")
      .get(invitationTokenHash(token));
    if (!row) throw new NotFoundError("This invitation is not valid");
    const status = invitationStatus(row);
    if (status === "revoked") throw new ValidationError("This invitation was revoked", "token", { reason: "revoked" });
    if (status === "accepted") throw new ValidationError("This invitation was already used", "token", { reason: "used" });
    if (status === "expired") throw new ValidationError("This invitation has expired; ask for a new one", "token", { reason: "expired" });
    return row;
  }
}
