import type { Db } from "../db/database.ts";
import { NotFoundError, ValidationError } from "../core/errors.ts";
import { sha256Hex } from "../core/crypto.ts";
import { isUlid, randomToken, ulid } from "../core/ids.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "./permissions.ts";
import { atLeast, type EffectiveRole, type WorkspaceRole } from "../workspaces/roles.ts";
import type { Members } from "./members.ts";
import { decodeCursor, pageOf, type Page } from "../core/pagination.ts";
import { listQuery } from "./schemas.ts";
import { createShareLinkInput, type SHARE_LINK_ROLES, type shareLinkOutput, type shareLinkUseOutput } from "./schemas.ts";
import type { z } from "zod";
import type { Restrictions } from "./restrictions/restrictions-service.ts";
import { HIDDEN } from "./restrictions/levels.ts";
import {
  workspaceRef,
  type WorkspaceJson,
  type WorkspaceRecords,
  type WorkspaceRow,
} from "../workspaces/workspace-records.ts";

type ShareLinkRole = (typeof SHARE_LINK_ROLES)[number];

interface ShareLinkRow {
  id: string;
  workspace_id: string;
  token_hash: string;
  role: ShareLinkRole;
  uses: number;
  max_uses: number | null;
  expires_at: string | null;
  created_by: string | null;
  created_at: string;
  revoked_at: string | null;
  /** The page a page link opens; null for a link that joins the workspace. */
  page_id: string | null;
}

/** The pages a page link may name, provided by the composition root (the content layer). */
interface SharedPageLookup {
  /** The live page at a path as a caller wrote it (normalized), or null. */
  find(workspaceId: string, path: string): { id: string; path: string } | null;
  /** Where a live page is now, or null when it is deleted. */
  pathOf(workspaceId: string, pageId: string): string | null;
}

/** What a page link opens: the row's facts its opening needs. */
interface PageLinkTarget {
  workspace: WorkspaceRow;
  pageId: string;
  role: ShareLinkRole;
}

/** A share link as answered: the documented output schema's type (`token` only in the create's answer). */
type ShareLinkJson = z.infer<typeof shareLinkOutput> & { token?: string };

const shareTokenHash = (token: string): string => sha256Hex(token);

const isActive = (row: ShareLinkRow, now: number): boolean =>
  row.revoked_at === null &&
  (row.expires_at === null || Date.parse(row.expires_at) > now) &&
  (row.max_uses === null || row.uses < row.max_uses);

/**
 * Share links: a token that lets any signed-in user join a workspace with a fixed role (never
 * admin), limited by an optional expiry and number of uses. Works in invite-only mode, since the
 * user already has an account. Only the token's SHA-256 is stored. A page link (with a `path`)
 * joins no one: it opens one page, as far as the page's rules allow (src/content/shared-page.ts).
 */
export class ShareLinks {
  constructor(
    private readonly deps: {
      db: Db;
      permissions: Permissions;
      members: Members;
      workspaces: WorkspaceRecords;
      /** The workspace record as every endpoint shows it (WorkspaceService.present). */
      present: (row: WorkspaceRow, role: EffectiveRole | null, principal?: Principal) => WorkspaceJson;
      restrictions: Restrictions;
    },
  ) {}

  /** Set by the composition root; without it (a bare service in a tool) page links cannot be made. */
  pages: SharedPageLookup | null = null;

  create(principal: Principal, ref: string, body: unknown): ShareLinkJson {
    const { db, permissions } = this.deps;
    const { workspace } = permissions.require(principal, workspaceRef(ref), "admin");
    const input = parseInput(createShareLinkInput, body);
    const t = nowMs();
    let expiresAt: string | null = null;
    if (input.expires_at != null) {
      const at = Date.parse(input.expires_at);
      if (at <= t) throw new ValidationError("expires_at must be in the future", "expires_at");
      expiresAt = isoFromMs(at);
    }
    // A page link names the page by id: a move keeps the link on it, and its rules are read where it is
    // when the link is opened. Only admins make links, and admins see every page: no hidden page is told apart here.
    let pageId: string | null = null;
    if (input.path !== undefined) {
      const page = this.pages?.find(workspace.id, input.path) ?? null;
      if (!page) throw new NotFoundError("Page not found");
      pageId = page.id;
    }
    const token = randomToken(32);
    const id = ulid();
    db.query(
      `INSERT INTO share_links (id, workspace_id, token_hash, role, max_uses, expires_at, created_by, created_at, page_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, workspace.id, shareTokenHash(token), input.role, input.max_uses ?? null, expiresAt, principal.userId, isoFromMs(t), pageId);
    return { ...this.toJson(this.row(workspace.id, id)!, t, workspace), token };
  }

  /** Links not revoked, newest first (expired and used-up ones show `active: false`). */
  list(principal: Principal, ref: string, query: unknown): Page<ShareLinkJson> {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    const q = parseInput(listQuery, query);
    const before = decodeCursor(q.cursor, 1)?.[0] ?? null;
    const rows = this.deps.db
      .query<ShareLinkRow, [string, string | null, string | null, number]>(
        `SELECT * FROM share_links WHERE workspace_id = ? AND revoked_at IS NULL AND (? IS NULL OR id < ?)
          ORDER BY id DESC LIMIT ?`,
      )
      .all(workspace.id, before, before, q.limit + 1);
    const t = nowMs();
    return pageOf(rows, q.limit, (r) => [r.id], (r) => this.toJson(r, t, workspace));
  }

  revoke(principal: Principal, ref: string, linkId: string): void {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    const row = isUlid(linkId) ? this.row(workspace.id, linkId) : null;
    if (!row || row.revoked_at !== null) throw new NotFoundError("Share link not found");
    this.deps.db.query("UPDATE share_links SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(isoFromMs(nowMs()), row.id);
  }

  /**
   * The signed-in user joins with the link's role. Someone who already holds that role or a
   * higher one keeps it, and that does not spend a use.
   */
  use(principal: Principal, token: string): z.infer<typeof shareLinkUseOutput> {
    const { db, members, permissions, workspaces } = this.deps;
    if (token.length > 512) throw new NotFoundError("Share link not found");
    const found = db.query<ShareLinkRow, [string]>("SELECT * FROM share_links WHERE token_hash = ?").get(shareTokenHash(token));
    // A page link opens its page and joins no one.
    if (!found || found.revoked_at !== null || found.page_id !== null) throw new NotFoundError("Share link not found");
    const workspace = workspaces.byId(found.workspace_id);
    if (!workspace) throw new NotFoundError("Share link not found");

    const result = db.transaction((): { role: EffectiveRole; change: "joined" | "role_changed" | null } => {
      const t = nowMs();
      const row = db.query<ShareLinkRow, [string]>("SELECT * FROM share_links WHERE id = ?").get(found.id)!;
      if (row.revoked_at !== null) throw new NotFoundError("Share link not found");
      if (row.expires_at !== null && Date.parse(row.expires_at) <= t) {
        throw new ValidationError("This share link has expired", "token", { reason: "expired" });
      }
      // Joining again never downgrades, and someone already at this level spends no use.
      const current = permissions.roleIn(principal.userId, workspace);
      if (current !== null && atLeast(current, row.role)) return { role: current, change: null };
      members.checkRole(workspace.org_id, principal.userId, row.role);
      const spent = db
        .query("UPDATE share_links SET uses = uses + 1 WHERE id = ? AND (max_uses IS NULL OR uses < max_uses)")
        .run(row.id).changes;
      if (spent !== 1) throw new ValidationError("This share link has been used up", "token", { reason: "exhausted" });
      return members.joinWithoutDowngrade(workspace.id, principal.userId, row.role, isoFromMs(t));
    })();

    if (result.change) {
      members.notify({
        kind: result.change,
        workspace_id: workspace.id,
        user_id: principal.userId,
        role: result.role as WorkspaceRole, // a change only comes from joinWithoutDowngrade
        actor_id: principal.userId,
        via: "share_link",
      });
    }
    const fresh = workspaces.byId(workspace.id) ?? workspace;
    return {
      workspace: this.deps.present(fresh, permissions.roleIn(principal.userId, fresh), principal),
      role: result.role,
      joined: result.change !== null,
    };
  }

  /**
   * The page a page link opens: null for an unknown, revoked or expired token and for a link that
   * joins a workspace (the caller answers all of them as a missing page). Opening spends no use.
   */
  pageTarget(token: string): PageLinkTarget | null {
    if (token.length > 512) return null;
    const row = this.deps.db.query<ShareLinkRow, [string]>("SELECT * FROM share_links WHERE token_hash = ?").get(shareTokenHash(token));
    if (!row || row.page_id === null || row.revoked_at !== null) return null;
    if (row.expires_at !== null && Date.parse(row.expires_at) <= nowMs()) return null;
    const workspace = this.deps.workspaces.byId(row.workspace_id);
    return workspace ? { workspace, pageId: row.page_id, role: row.role } : null;
  }

  private row(workspaceId: string, id: string): ShareLinkRow | null {
    return this.deps.db
      .query<ShareLinkRow, [string, string]>("SELECT * FROM share_links WHERE workspace_id = ? AND id = ?")
      .get(workspaceId, id);
  }

  private toJson(row: ShareLinkRow, now: number, workspace: WorkspaceRow): ShareLinkJson {
    const path = row.page_id === null ? null : (this.pages?.pathOf(workspace.id, row.page_id) ?? null);
    return {
      id: row.id,
      role: row.role,
      uses: row.uses,
      max_uses: row.max_uses,
      expires_at: row.expires_at,
      created_at: row.created_at,
      // Page links are not used up: opening one spends nothing.
      active: row.page_id === null ? isActive(row, now) : isActive({ ...row, max_uses: null }, now) && path !== null,
      path,
      anyone: path === null ? null : this.deps.restrictions.linkLevel(workspace, path) > HIDDEN,
    };
  }
}
