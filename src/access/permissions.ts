import type { Db } from "../db/database.ts";
import { ForbiddenError, NotFoundError } from "../core/errors.ts";
import type { Principal } from "../core/principal.ts";
import { atLeast, type EffectiveRole, type WorkspaceRole } from "../workspaces/roles.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../workspaces/workspace-records.ts";

/**
 * The one permission check. Every route that touches a workspace asks here. A workspace the
 * caller cannot read does not exist for them (404, never 403); a workspace they can read but not
 * change answers 403.
 */
export class Permissions {
  constructor(
    private readonly db: Db,
    private readonly workspaces: WorkspaceRecords,
  ) {}

  isSuperAdminOf(userId: string, orgId: string): boolean {
    return (
      this.db
        .query<{ role: string }, [string, string]>("SELECT role FROM org_members WHERE org_id = ? AND user_id = ?")
        .get(orgId, userId)?.role === "super_admin"
    );
  }

  /** The user's effective role in a workspace, or null when they have none. */
  roleIn(userId: string, workspace: WorkspaceRow): EffectiveRole | null {
    if (this.isSuperAdminOf(userId, workspace.org_id)) return "super_admin";
    const row = this.db
      .query<{ role: WorkspaceRole }, [string, string]>(
        "SELECT role FROM workspace_members WHERE workspace_id = ? AND user_id = ?",
      )
      .get(workspace.id, userId);
    return row?.role ?? null;
  }

  /** The principal's role in the workspace, with API-key workspace limits applied. */
  principalRole(principal: Principal, workspace: WorkspaceRow): EffectiveRole | null {
    if (principal.kind === "api_key") {
      if (principal.workspaceId !== null && principal.workspaceId !== workspace.id) return null;
      if (principal.workspaceIds !== undefined && !principal.workspaceIds.includes(workspace.id)) return null;
      // Keys are scoped to their organization: a key reaches no other organization's workspace,
      // even one its owner was invited to (a key limited to that workspace belongs to its org).
      if (principal.orgId !== workspace.org_id) return null;
    }
    return this.roleIn(principal.userId, workspace);
  }

  /**
   * Loads a live workspace by id (or slug) and checks the principal holds at least `min`.
   * Returns the row and the role so callers can make finer decisions (editor flags).
   */
  require(
    principal: Principal,
    ref: { id: string } | { slug: string },
    min: EffectiveRole,
  ): { workspace: WorkspaceRow; role: EffectiveRole } {
    const workspace = "id" in ref ? this.workspaces.byId(ref.id) : this.workspaces.bySlug(ref.slug);
    if (!workspace) throw new NotFoundError("Workspace not found");
    const role = this.principalRole(principal, workspace);
    if (role === null) throw new NotFoundError("Workspace not found");
    if (!atLeast(role, min)) throw new ForbiddenError(`This needs the ${min.replace("_", " ")} role in the workspace`);
    return { workspace, role };
  }
}
