import type { Db } from "../db/database.ts";
import type { Restrictions } from "./restrictions/restrictions-service.ts";
import { ConflictError, ForbiddenError } from "../core/errors.ts";
import { nowIso } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "./permissions.ts";
import type { EffectiveRole } from "../workspaces/roles.ts";
import { decodeCursor, pageOf, type Page } from "../core/pagination.ts";
import { listQuery } from "./schemas.ts";
import { workspaceRef, type WorkspaceJson, type WorkspaceRecords, type WorkspaceRow } from "../workspaces/workspace-records.ts";
import { createWorkspaceInput } from "../workspaces/workspace-schemas.ts";
import { writeGitToken } from "../workspaces/remote-token.ts";

export type WorkspaceHook = (workspace: WorkspaceRow, actorUserId: string) => Promise<void> | void;

/**
 * A workspace folder made before its row (a clone): `place` moves it to the workspace's folder
 * inside the row's transaction, `discard` removes it wherever it is, `done` marks it complete once
 * the row is committed.
 */
export interface StagedFolder {
  place(workspaceId: string): void;
  discard(): void;
  done(): void;
}
type PrepareRemote = (remote: { url: string; branch: string; token: string | null }) => Promise<StagedFolder>;

/**
 * Creating, listing, reading and deleting workspaces. Super Admins (organization owners) create
 * and delete; anyone with a role reads. The work tree on disk and git cloning belong to other
 * domains, which register hooks here rather than being imported.
 */
export class WorkspaceService {
  /** Run after a workspace is committed (the content ledger creates its directory, git clones). */
  readonly createdHooks: WorkspaceHook[] = [];
  /**
   * Set by git sync: clones a remote into a staging folder before the row exists, so creation
   * from a remote is all-or-nothing (docs/decisions/git-commits.md §11).
   */
  prepareRemote: PrepareRemote | null = null;
  /** Slugs whose creation is under way (a clone): a second create with one of them is a CONFLICT. */
  private readonly creating = new Set<string>();
  /** Run after a workspace is soft-deleted (stop sync, drop the search index from memory). */
  readonly deletedHooks: WorkspaceHook[] = [];
  /** Number of live pages (records of the content ledger's `pages` table). */
  pageCount: (workspaceId: string) => number = (workspaceId) =>
    this.deps.db
      .query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM pages WHERE workspace_id = ? AND deleted_at IS NULL")
      .get(workspaceId)?.n ?? 0;

  constructor(private readonly deps: { db: Db; records: WorkspaceRecords; permissions: Permissions; restrictions: Restrictions }) {}

  /** The pages the principal can see: a restricted folder's pages are not counted for those it hides them from. */
  private countFor(principal: Principal, row: WorkspaceRow, role: EffectiveRole | null): number {
    const vis = this.deps.restrictions.visibilityOf(principal, row, role);
    if (!vis.restricted) return this.pageCount(row.id);
    const paths = this.deps.db
      .query<{ path: string }, [string]>("SELECT path FROM pages WHERE workspace_id = ? AND deleted_at IS NULL")
      .all(row.id);
    return paths.filter((p) => vis.sees(p.path)).length;
  }

  list(principal: Principal, query: unknown): Page<WorkspaceJson> {
    const { records, permissions } = this.deps;
    const q = parseInput(listQuery, query);
    const after = decodeCursor(q.cursor, 1)?.[0] ?? null;
    const onlyId = principal.kind === "api_key" ? principal.workspaceId : null;
    const rows = records.listReachableBy(principal.userId, { onlyId, afterId: after, limit: q.limit + 1 });
    const page = pageOf(rows, q.limit, (r) => [r.id], (r) => r);
    return {
      items: page.items.flatMap((row) => {
        const role = permissions.principalRole(principal, row);
        return role === null ? [] : [records.toJson(row, role, this.countFor(principal, row, role))];
      }),
      next_cursor: page.next_cursor,
    };
  }

  /** The workspace record as every endpoint shows it. */
  present(row: WorkspaceRow, role: EffectiveRole | null, principal?: Principal): WorkspaceJson {
    return this.deps.records.toJson(row, role, principal ? this.countFor(principal, row, role) : this.pageCount(row.id));
  }

  get(principal: Principal, ref: string): WorkspaceJson {
    const { workspace, role } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    return this.deps.records.toJson(workspace, role, this.countFor(principal, workspace, role));
  }

  /** Super Admin of the caller's organization only; the creator also becomes an admin member. */
  async create(principal: Principal, body: unknown): Promise<WorkspaceJson> {
    const { records, permissions } = this.deps;
    if (principal.kind === "api_key" && principal.workspaceId !== null) {
      throw new ForbiddenError("An API key limited to one workspace cannot create workspaces");
    }
    if (principal.kind === "api_key" && principal.workspaceIds !== undefined) {
      throw new ForbiddenError("An authorized app reaches only the workspaces it was given and cannot create workspaces");
    }
    if (!permissions.isSuperAdminOf(principal.userId, principal.orgId)) {
      throw new ForbiddenError("Only the organization's Super Admin can create workspaces");
    }
    const input = parseInput(createWorkspaceInput, body);
    const row = await this.insert({ ...input, orgId: () => principal.orgId, createdBy: principal.userId });
    for (const hook of this.createdHooks) await hook(row, principal.userId);
    const fresh = records.byId(row.id) ?? row;
    return records.toJson(fresh, permissions.principalRole(principal, fresh), this.pageCount(fresh.id));
  }

  /**
   * The operator's workspace (`quire init`): in the organization `orgId` names (inside the row's
   * transaction), with no member and no creator — the organization's Super Admin reaches it. From
   * a remote, the clone comes first as for `create`. The created hooks are not run: the caller
   * indexes the folder and makes its history itself.
   */
  createForOperator(input: { name: string; slug: string; git_remote: string | null; git_branch: string; orgId: (now: string) => string }): Promise<WorkspaceRow> {
    return this.insert({ name: input.name, slug: input.slug, ...(input.git_remote !== null ? { git_remote: input.git_remote } : {}), git_branch: input.git_branch, orgId: input.orgId, createdBy: null });
  }

  /** The row (and the creator's admin membership), after the clone of a remote into its folder: all or nothing. */
  private async insert(input: {
    name: string;
    slug: string;
    description?: string | undefined;
    git_remote?: string | null | undefined;
    git_branch?: string | undefined;
    git_token?: string | null | undefined;
    orgId: (now: string) => string;
    createdBy: string | null;
  }): Promise<WorkspaceRow> {
    const { db, records } = this.deps;
    if (records.slugTaken(input.slug) || this.creating.has(input.slug)) throw slugTaken();
    // From a remote: the clone runs first, in a staging folder, with the slug held; no row is
    // visible until the clone is complete, and a failed clone leaves nothing.
    let staged: StagedFolder | null = null;
    if (input.git_remote && this.prepareRemote) {
      this.creating.add(input.slug);
      try {
        staged = await this.prepareRemote({ url: input.git_remote, branch: input.git_branch ?? "main", token: input.git_token ?? null });
      } catch (error) {
        this.creating.delete(input.slug);
        throw error;
      }
    }
    const now = nowIso();
    let row: WorkspaceRow;
    try {
      row = db.transaction(() => {
        if (records.slugTaken(input.slug)) throw slugTaken();
        const ws = records.insert({
          orgId: input.orgId(now),
          name: input.name,
          slug: input.slug,
          description: input.description ?? "",
          gitRemote: input.git_remote ?? null,
          gitBranch: input.git_branch ?? "main",
          createdBy: input.createdBy,
          now,
        });
        if (input.git_token) writeGitToken(db, ws.id, input.git_token, now);
        if (input.createdBy !== null) {
          db.query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'admin', ?)").run(
            ws.id,
            input.createdBy,
            now,
          );
        }
        // Last: a failed move rolls the row back; a crash before the commit leaves a marked
        // folder without a row, which the next start removes.
        staged?.place(ws.id);
        return ws;
      })();
    } catch (error) {
      staged?.discard();
      // Two creations racing for one slug: the partial unique index decides.
      if (String(error).includes("UNIQUE constraint failed: workspaces.slug")) throw slugTaken();
      throw error;
    } finally {
      if (staged) this.creating.delete(input.slug);
    }
    staged?.done();
    return row;
  }

  /** Soft delete by the organization's Super Admin; afterwards the workspace is 404 everywhere. */
  async delete(principal: Principal, ref: string): Promise<void> {
    const { records, permissions } = this.deps;
    const { workspace } = permissions.require(principal, workspaceRef(ref), "super_admin");
    if (!records.softDelete(workspace.id, nowIso())) return;
    await this.forget(workspace, principal.userId);
  }

  /**
   * Runs the deleted hooks for a workspace whose row is already gone or soft-deleted by a committed
   * transaction of another domain (an account deletion removes the organization with its
   * workspaces in one transaction, and lets the other domains go only after it commits).
   */
  async forget(workspace: WorkspaceRow, actorUserId: string): Promise<void> {
    for (const hook of this.deletedHooks) await hook(workspace, actorUserId);
  }
}

const slugTaken = () => new ConflictError("A workspace with this slug already exists", undefined, { field: "slug" });
