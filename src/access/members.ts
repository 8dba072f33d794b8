import type { z } from "zod";
import type { Db } from "../db/database.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../core/errors.ts";
import { nowIso } from "../core/clock.ts";
import { isUlid } from "../core/ids.ts";
import { parseInput } from "../core/validate.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "./permissions.ts";
import { ROLE_LEVEL, type WorkspaceRole } from "../workspaces/roles.ts";
import { decodeCursor, pageOf, type Page } from "../core/pagination.ts";
import { listQuery, type memberOutput, setMemberRoleInput } from "./schemas.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";

/** A member as answered: the documented output schema's type. */
type MemberJson = z.infer<typeof memberOutput>;

interface MemberRow {
  user_id: string;
  name: string;
  email: string;
  role: WorkspaceRole;
  joined_at: string;
}

/** What changed in a workspace's membership; the activity feed listens for these. */
interface MembershipChange {
  kind: "joined" | "role_changed" | "left";
  workspace_id: string;
  user_id: string;
  /** The new role; null when the member left. */
  role: WorkspaceRole | null;
  actor_id: string;
  via: "admin" | "invitation" | "share_link";
}

const toJson = (r: MemberRow): MemberJson => ({
  user_id: r.user_id,
  name: r.name,
  email: r.email,
  role: r.role,
  joined_at: r.joined_at,
});

/**
 * Workspace members: the admin's list, role changes and removal, and the one join rule used by
 * invitations and share links (joining never lowers a role someone already has).
 */
export class Members {
  private readonly listeners = new Set<(change: MembershipChange) => void>();

  constructor(
    private readonly deps: { db: Db; permissions: Permissions; onListenerError?: (error: unknown) => void },
  ) {}

  /** Listeners run after the commit; a failing one is reported, never undoes the change. */
  onChange(listener: (change: MembershipChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(change: MembershipChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.deps.onListenerError?.(error);
      }
    }
  }

  list(principal: Principal, ref: string, query: unknown): Page<MemberJson> {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    const q = parseInput(listQuery, query);
    const after = decodeCursor(q.cursor, 2);
    const rows = this.deps.db
      .query<MemberRow, [string, string | null, string | null, string | null, string | null, number]>(
        `SELECT m.user_id, u.name, u.email, m.role, m.joined_at
           FROM workspace_members m JOIN users u ON u.id = m.user_id
          WHERE m.workspace_id = ?
            AND (? IS NULL OR m.joined_at > ? OR (m.joined_at = ? AND m.user_id > ?))
          ORDER BY m.joined_at, m.user_id
          LIMIT ?`,
      )
      .all(workspace.id, after?.[0] ?? null, after?.[0] ?? null, after?.[0] ?? null, after?.[1] ?? null, q.limit + 1);
    return pageOf(rows, q.limit, (r) => [r.joined_at, r.user_id], toJson);
  }

  /**
   * Checks run before someone is given a role (the Cloud edition's seat limit for editors and
   * admins), inside the change's transaction; one that throws refuses the change.
   */
  readonly beforeRole: Array<(change: { orgId: string; userId: string; role: WorkspaceRole }) => void> = [];

  /** Runs the `beforeRole` checks; call inside the transaction that gives the role. */
  checkRole(orgId: string, userId: string, role: WorkspaceRole): void {
    for (const check of this.beforeRole) check({ orgId, userId, role });
  }

  setRole(principal: Principal, ref: string, userId: string, body: unknown): MemberJson {
    const { db, permissions } = this.deps;
    const { workspace } = permissions.require(principal, workspaceRef(ref), "admin");
    const { role } = parseInput(setMemberRoleInput, body);
    const result = db.transaction(() => {
      const current = this.memberRow(workspace.id, userId);
      if (!current) throw new NotFoundError("No such member in this workspace");
      if (permissions.isSuperAdminOf(userId, workspace.org_id)) throw superAdminUntouchable();
      if (current.role === role) return { row: current, changed: false };
      if (current.role === "admin" && this.adminCount(workspace.id) <= 1) throw lastAdmin("demoted");
      this.checkRole(workspace.org_id, userId, role);
      db.query("UPDATE workspace_members SET role = ? WHERE workspace_id = ? AND user_id = ?").run(role, workspace.id, userId);
      return { row: { ...current, role }, changed: true };
    })();
    if (result.changed) {
      this.notify({ kind: "role_changed", workspace_id: workspace.id, user_id: userId, role, actor_id: principal.userId, via: "admin" });
    }
    return toJson(result.row);
  }

  remove(principal: Principal, ref: string, userId: string): void {
    const { db, permissions } = this.deps;
    const { workspace } = permissions.require(principal, workspaceRef(ref), "admin");
    db.transaction(() => {
      const current = this.memberRow(workspace.id, userId);
      if (!current) throw new NotFoundError("No such member in this workspace");
      if (permissions.isSuperAdminOf(userId, workspace.org_id)) throw superAdminUntouchable();
      if (current.role === "admin" && this.adminCount(workspace.id) <= 1) throw lastAdmin("removed");
      db.query("DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?").run(workspace.id, userId);
    })();
    this.notify({ kind: "left", workspace_id: workspace.id, user_id: userId, role: null, actor_id: principal.userId, via: "admin" });
  }

  /**
   * Adds the user with `role`, or raises an existing member to it; never lowers a role. Call
   * inside the caller's transaction. Returns the role the user holds afterwards.
   */
  joinWithoutDowngrade(
    workspaceId: string,
    userId: string,
    role: WorkspaceRole,
    now: string = nowIso(),
  ): { role: WorkspaceRole; change: "joined" | "role_changed" | null } {
    const current = this.memberRow(workspaceId, userId);
    if (!current) {
      this.deps.db
        .query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)")
        .run(workspaceId, userId, role, now);
      return { role, change: "joined" };
    }
    if (ROLE_LEVEL[role] <= ROLE_LEVEL[current.role]) return { role: current.role, change: null };
    this.deps.db.query("UPDATE workspace_members SET role = ? WHERE workspace_id = ? AND user_id = ?").run(role, workspaceId, userId);
    return { role, change: "role_changed" };
  }

  private memberRow(workspaceId: string, userId: string): MemberRow | null {
    if (!isUlid(userId)) return null;
    return this.deps.db
      .query<MemberRow, [string, string]>(
        `SELECT m.user_id, u.name, u.email, m.role, m.joined_at
           FROM workspace_members m JOIN users u ON u.id = m.user_id
          WHERE m.workspace_id = ? AND m.user_id = ?`,
      )
      .get(workspaceId, userId);
  }

  private adminCount(workspaceId: string): number {
    return (
      this.deps.db
        .query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM workspace_members WHERE workspace_id = ? AND role = 'admin'")
        .get(workspaceId)?.n ?? 0
    );
  }
}

const superAdminUntouchable = () =>
  new ForbiddenError("This member is the organization's Super Admin, whose access to every workspace cannot be changed");

const lastAdmin = (what: "demoted" | "removed") =>
  new ConflictError(`The workspace's last admin cannot be ${what}; make another member admin first`, undefined, {
    field: what === "demoted" ? "role" : "user_id",
  });
