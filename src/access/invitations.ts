import type { Db } from "../db/database.ts";
import { ConflictError, NotFoundError } from "../core/errors.ts";
import { sha256Hex } from "../core/crypto.ts";
import { isUlid, randomToken, ulid } from "../core/ids.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import type { EmailOutbox } from "../mail/email-outbox.ts";
import { normalizeEmail } from "../identity/users.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "./permissions.ts";
import type { WorkspaceRole } from "../workspaces/roles.ts";
import { decodeCursor, pageOf, type Page } from "../core/pagination.ts";
import type { z } from "zod";
import { createInvitationInput, invitationListQuery, listQuery, type INVITATION_STATUSES, type invitationOutput } from "./schemas.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";
import { invitationEmail } from "./invitation-email.ts";

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export interface InvitationRow {
  id: string;
  workspace_id: string;
  email: string;
  email_normalized: string;
  role: WorkspaceRole;
  token_hash: string;
  status: "pending" | "accepted" | "revoked";
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** An invitation as answered: the documented output schema's type (`url` only in the create's answer). */
type InvitationJson = z.infer<typeof invitationOutput>;

/** A pending invitation past its expiry reads as expired; nothing needs to rewrite the row. */
export function invitationStatus(row: Pick<InvitationRow, "status" | "expires_at">, now = nowMs()): InvitationStatus {
  if (row.status === "pending" && Date.parse(row.expires_at) <= now) return "expired";
  return row.status;
}

export const invitationTokenHash = (token: string): string => sha256Hex(token);

/**
 * Email invitations to a workspace (admin side). The token is 32 random bytes, shown only in the
 * link and stored as its SHA-256, so the database never holds a usable invitation.
 */
export class Invitations {
  constructor(
    private readonly deps: { db: Db; permissions: Permissions; email: EmailOutbox; baseUrl: string },
  ) {}

  /**
   * Checks run inside the invitation's transaction before it is stored (the Cloud edition's seat
   * limit); a check that throws refuses the invitation and nothing is written.
   */
  readonly beforeInvite: Array<(invite: { orgId: string; role: WorkspaceRole; emailNormalized: string }) => void> = [];

  create(principal: Principal, ref: string, body: unknown): InvitationJson {
    const { db, permissions, email, baseUrl } = this.deps;
    const { workspace } = permissions.require(principal, workspaceRef(ref), "admin");
    const input = parseInput(createInvitationInput, body);
    const emailNormalized = normalizeEmail(input.email);
    const token = randomToken(32);
    const url = `${baseUrl}/invite/${token}`;
    const t = nowMs();
    const id = ulid();
    const inviter = db.query<{ name: string }, [string]>("SELECT name FROM users WHERE id = ?").get(principal.userId);

    const queued = db.transaction(() => {
      const existing = db
        .query<{ id: string }, [string]>("SELECT id FROM users WHERE email_normalized = ?")
        .get(emailNormalized);
      if (existing && permissions.roleIn(existing.id, workspace) !== null) {
        throw new ConflictError("This person already has access to the workspace; change their role instead", undefined, {
          field: "email",
        });
      }
      for (const check of this.beforeInvite) check({ orgId: workspace.org_id, role: input.role, emailNormalized });
      // A new invitation to the same address replaces the pending one (a resend).
      db.query("UPDATE invitations SET status = 'revoked' WHERE workspace_id = ? AND email_normalized = ? AND status = 'pending'").run(
        workspace.id,
        emailNormalized,
      );
      db.query(
        `INSERT INTO invitations (id, workspace_id, email, email_normalized, role, token_hash, invited_by, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(id, workspace.id, input.email, emailNormalized, input.role, invitationTokenHash(token), principal.userId, isoFromMs(t), isoFromMs(t + INVITATION_TTL_MS));
      if (!email.enabled) return false;
      email.enqueue(
        invitationEmail({
          to: input.email,
          workspaceName: workspace.name,
          inviterName: inviter?.name ?? "An administrator",
          role: input.role,
          url,
          expiresAt: isoFromMs(t + INVITATION_TTL_MS),
        }),
      );
      return true;
    })();
    if (queued) email.kick();
    const json = this.toJson(this.row(workspace.id, id)!);
    return queued ? json : { ...json, url };
  }

  list(principal: Principal, ref: string, query: unknown): Page<InvitationJson> {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    const q = parseInput(listQuery, query);
    const { status } = parseInput(invitationListQuery, query);
    const before = decodeCursor(q.cursor, 1)?.[0] ?? null;
    const now = isoFromMs(nowMs());
    const filter = {
      all: "1 = 1",
      pending: "i.status = 'pending' AND i.expires_at > $now",
      expired: "i.status = 'pending' AND i.expires_at <= $now",
      accepted: "i.status = 'accepted'",
      revoked: "i.status = 'revoked'",
    }[status];
    const rows = this.deps.db
      .query<InvitationRow & { inviter_name: string | null }, Record<string, string | number | null>>(
        `SELECT i.*, u.name AS inviter_name FROM invitations i LEFT JOIN users u ON u.id = i.invited_by
          WHERE i.workspace_id = $ws AND (${filter}) AND ($before IS NULL OR i.id < $before)
          ORDER BY i.id DESC LIMIT $limit`,
      )
      .all({ ws: workspace.id, now, before, limit: q.limit + 1 });
    return pageOf(rows, q.limit, (r) => [r.id], (r) => this.toJson(r));
  }

  /** Pending (or expired) → revoked. Revoking twice is fine; an accepted invitation is history. */
  revoke(principal: Principal, ref: string, invitationId: string): void {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    const row = isUlid(invitationId) ? this.row(workspace.id, invitationId) : null;
    if (!row) throw new NotFoundError("Invitation not found");
    if (row.status === "accepted") throw new ConflictError("This invitation was already accepted; remove the member instead");
    this.deps.db.query("UPDATE invitations SET status = 'revoked' WHERE id = ? AND status = 'pending'").run(row.id);
  }

  private row(workspaceId: string, id: string): (InvitationRow & { inviter_name: string | null }) | null {
    return this.deps.db
      .query<InvitationRow & { inviter_name: string | null }, [string, string]>(
        "SELECT i.*, u.name AS inviter_name FROM invitations i LEFT JOIN users u ON u.id = i.invited_by WHERE i.workspace_id = ? AND i.id = ?",
      )
      .get(workspaceId, id);
  }

  private toJson(row: InvitationRow & { inviter_name: string | null }): InvitationJson {
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      status: invitationStatus(row),
      invited_by: row.invited_by ? { id: row.invited_by, name: row.inviter_name ?? "" } : null,
      created_at: row.created_at,
      expires_at: row.expires_at,
      accepted_at: row.accepted_at,
    };
  }
}
