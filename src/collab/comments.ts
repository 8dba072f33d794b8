import type { z } from "zod";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import type { Db } from "../db/database.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { Users } from "../identity/users.ts";
import { atLeast, type EffectiveRole } from "../workspaces/roles.ts";
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from "../core/errors.ts";
import type { SharedPages } from "../content/shared-page.ts";
import { levelRank } from "../access/restrictions/levels.ts";
import { isUlid, ulid } from "../core/ids.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";
import { parseInput } from "../core/validate.ts";
import { type commentOutput, createCommentInput, createLinkCommentInput, listCommentsQuery, listLinkCommentsQuery, updateCommentInput } from "./comment-schemas.ts";
import { normalizePagePath } from "../content/paths.ts";
import { resolveMentions, workspacePeople } from "./mentions.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { recordActivity } from "./activity-writer.ts";

interface CommentRow {
  id: string;
  workspace_id: string;
  /** The page's path now (it follows moves), or the path as addressed when the page is gone. */
  page_path: string;
  page_id: string | null;
  parent_id: string | null;
  author_id: string | null;
  author_name: string;
  body: string;
  mentions: string;
  anchor: string | null;
  resolved: number;
  resolved_by: string | null;
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A comment as answered: the documented output schema's type, so the two cannot differ. */
type CommentJson = z.infer<typeof commentOutput>;

/**
 * Comments belong to a page by its id, so they follow the page when it moves (by the API, a git
 * pull or outside Quire) and a new page later created at the same path starts without them.
 * `page_path` is read through the page's record; the stored path only stands in once the record is
 * gone. Rows from before comments required a page have no page_id and stay addressed by path.
 */
const SELECT = `SELECT c.id, c.workspace_id, COALESCE(p.path, c.page_path) AS page_path, c.page_id, c.parent_id, c.author_id,
  c.author_name, c.body, c.mentions, c.anchor, c.resolved, c.resolved_by, c.resolved_at, c.created_at, c.updated_at
  FROM comments c LEFT JOIN pages p ON p.id = c.page_id`;

function toJson(row: CommentRow): CommentJson {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    page_path: row.page_path,
    page_id: row.page_id,
    parent_id: row.parent_id,
    author: { id: row.author_id, name: row.author_name },
    body: row.body,
    mentions: JSON.parse(row.mentions) as string[],
    anchor: row.anchor,
    resolved: row.resolved === 1,
    resolved_by: row.resolved_by,
    resolved_at: row.resolved_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Comments on pages (docs/architecture.md §8). Rules:
 * - reading needs read access to the workspace (404 otherwise); writing needs commenter or higher;
 * - a comment is on a live page (404 otherwise) and stays with it across moves (see SELECT);
 * - threads are one level deep: a reply to a reply is attached to the thread's root, and its page
 *   is the root's (a different page_path is refused);
 * - the author edits and deletes their own comments, an admin anyone's; deleting a root deletes
 *   its replies;
 * - resolve/unresolve (commenter+) act on the thread: given a reply, its root changes state;
 * - `comment_added` and `comment_resolved` activity rows are written in the same transaction.
 */
export class Comments {
  constructor(
    private readonly deps: {
      db: Db;
      permissions: Permissions;
      restrictions: Restrictions;
      workspaces: WorkspaceRecords;
      users: Users;
      bus: EventBus;
      sharedPages: SharedPages;
    },
  ) {}

  list(principal: Principal, ref: string, query: unknown): { items: CommentJson[]; next_cursor: string | null } {
    const q = parseInput(listCommentsQuery, query);
    const { workspace, role } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const vis = this.deps.restrictions.visibilityOf(principal, workspace, role);
    const after = decodeCursor(q.cursor);
    const where = ["c.workspace_id = ?"];
    const args: (string | number)[] = [workspace.id];
    if (q.page !== undefined) {
      const path = normalizePagePath(q.page, "page");
      const pageId = this.pageIdOf(workspace.id, path);
      if (pageId === null) {
        where.push("c.page_id IS NULL AND c.page_path = ?");
        args.push(path);
      } else {
        where.push("(c.page_id = ? OR (c.page_id IS NULL AND c.page_path = ?))");
        args.push(pageId, path);
      }
    }
    if (q.resolved !== undefined) {
      // The thread's state decides, so a reply in a resolved thread counts as resolved.
      where.push("COALESCE((SELECT r.resolved FROM comments r WHERE r.id = c.parent_id), c.resolved) = ?");
      args.push(q.resolved === "true" ? 1 : 0);
    }
    // A restricted page's comments are read past for those it is hidden from.
    return this.page(where, args, after, q.limit, (row) => vis.sees(row.page_path));
  }

  /** Rows matching `where` after the cursor, those `keep` refuses read past: a page stays full while more remain. */
  private page(where: string[], args: (string | number)[], after: string | null, limit: number, keep: (row: CommentRow) => boolean) {
    const rows: CommentRow[] = [];
    let from = after;
    for (;;) {
      const clauses = from ? [...where, "c.id > ?"] : where;
      const batch = this.deps.db
        .query<CommentRow, (string | number)[]>(`${SELECT} WHERE ${clauses.join(" AND ")} ORDER BY c.id LIMIT ${limit + 1}`)
        .all(...(from ? [...args, from] : args));
      for (const row of batch) if (keep(row)) rows.push(row);
      if (rows.length > limit || batch.length <= limit) break;
      from = batch[batch.length - 1]!.id;
    }
    const more = rows.length > limit;
    const items = rows.slice(0, limit).map(toJson);
    return { items, next_cursor: more ? encodeCursor(items[items.length - 1]!.id) : null };
  }

  get(principal: Principal, commentId: string): CommentJson {
    return toJson(this.load(principal, commentId, "viewer").row);
  }

  create(principal: Principal, ref: string, body: unknown): CommentJson {
    const input = parseInput(createCommentInput, body);
    const { workspace, role } = this.deps.permissions.require(principal, workspaceRef(ref), "commenter");
    const vis = this.deps.restrictions.visibilityOf(principal, workspace, role);
    let parent: CommentRow | null = null;
    if (input.parent_id !== undefined) {
      parent = this.row(input.parent_id);
      if (!parent || parent.workspace_id !== workspace.id || !vis.sees(parent.page_path)) throw new NotFoundError("Parent comment not found");
      if (parent.parent_id !== null) parent = this.row(parent.parent_id)!;
    }
    let pagePath: string;
    if (parent) {
      pagePath = parent.page_path;
      if (input.page_path !== undefined && normalizePagePath(input.page_path, "page_path") !== pagePath) {
        throw new ValidationError("page_path: a reply belongs to its thread's page", "page_path");
      }
    } else {
      if (input.page_path === undefined) throw new ValidationError("page_path: is required", "page_path");
      pagePath = normalizePagePath(input.page_path, "page_path");
    }
    // Only a page that exists can be commented on (a reply too: not on a thread whose page is gone).
    const pageId = this.pageIdOf(workspace.id, pagePath);
    if (pageId === null || !vis.sees(pagePath) || (parent?.page_id != null && parent.page_id !== pageId)) throw new NotFoundError("Page not found");
    if (!vis.allows(pagePath, "comment")) throw new ForbiddenError("This page's access list does not give you comment access");
    return this.insert(principal, workspace, { path: pagePath, id: pageId }, parent, input);
  }

  /**
   * A page share link's thread (docs/decisions/restricted-folders.md, "Share links"): a link at
   * `comment` is one more way to hold `comment` on its one page, and nothing else. Read at every
   * call: a link that opens nothing (revoked, expired, a deleted page, the allowance off) answers
   * as a missing page, like its page read; a link that opens the page at `view` is refused; the
   * holder must be signed in (a comment carries its author: no anonymous comments). A member who
   * sees the page goes by their own access, as the page read does.
   */
  listThroughLink(principal: Principal | null, token: string, query: unknown): { items: CommentJson[]; next_cursor: string | null } {
    const q = parseInput(listLinkCommentsQuery, query);
    const { page } = this.linkPage(principal, token);
    const where = ["c.workspace_id = ?", "(c.page_id = ? OR (c.page_id IS NULL AND c.page_path = ?))"];
    const args: (string | number)[] = [page.workspace.id, page.pageId, page.path];
    if (q.resolved !== undefined) {
      where.push("COALESCE((SELECT r.resolved FROM comments r WHERE r.id = c.parent_id), c.resolved) = ?");
      args.push(q.resolved === "true" ? 1 : 0);
    }
    return this.page(where, args, decodeCursor(q.cursor), q.limit, () => true);
  }

  /** A new thread on the link's page, or a reply in one of its threads (never another page's). */
  createThroughLink(principal: Principal | null, token: string, body: unknown): CommentJson {
    const input = parseInput(createLinkCommentInput, body);
    const { page, principal: author } = this.linkPage(principal, token);
    let parent: CommentRow | null = null;
    if (input.parent_id !== undefined) {
      parent = this.row(input.parent_id);
      if (parent?.parent_id != null) parent = this.row(parent.parent_id);
      // A thread of another page does not exist through this link, whatever its id.
      const onPage = parent !== null && parent.workspace_id === page.workspace.id && (parent.page_id === null ? parent.page_path === page.path : parent.page_id === page.pageId);
      if (!onPage) throw new NotFoundError("Parent comment not found");
    }
    return this.insert(author, page.workspace, { path: page.path, id: page.pageId }, parent, input);
  }

  /** The link's page where it gives `comment` now, and the signed-in person holding it. */
  private linkPage(principal: Principal | null, token: string) {
    const page = this.deps.sharedPages.grant(principal, token);
    if (!page) throw new NotFoundError("Page not found");
    if (levelRank(page.level) < levelRank("comment")) throw new ForbiddenError("This link lets you read the page, not comment on it");
    // A link is opened by a person: an API key keeps to the workspace's own comment routes and its scopes.
    if (principal?.kind !== "session") throw new UnauthorizedError("Sign in to read and add comments through this link");
    return { page, principal };
  }

  /** Writes a comment on a live page, with its activity row, and announces it. Mentions reach only people who see the page. */
  private insert(
    principal: Principal,
    workspace: WorkspaceRow,
    page: { path: string; id: string },
    parent: CommentRow | null,
    input: { body: string; anchor?: string | undefined },
  ): CommentJson {
    const author = this.deps.users.byId(principal.userId);
    const now = new Date().toISOString();
    const pagePath = page.path;
    const pageId = page.id;
    const mentions = resolveMentions(input.body, this.peopleWhoSee(workspace, pagePath));
    const row: CommentRow = {
      id: ulid(),
      workspace_id: workspace.id,
      page_path: pagePath,
      page_id: pageId,
      parent_id: parent?.id ?? null,
      author_id: principal.userId,
      author_name: author?.name ?? "",
      body: input.body,
      mentions: JSON.stringify(mentions),
      anchor: input.anchor ?? null,
      resolved: 0,
      resolved_by: null,
      resolved_at: null,
      created_at: now,
      updated_at: now,
    };
    this.deps.db.transaction(() => {
      this.deps.db
        .query(
          `INSERT INTO comments (id, workspace_id, page_path, page_id, parent_id, author_id, author_name, body, mentions, anchor, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(row.id, row.workspace_id, row.page_path, row.page_id, row.parent_id, row.author_id, row.author_name, row.body, row.mentions, row.anchor, now, now);
      recordActivity(this.deps.db, {
        workspaceId: workspace.id,
        action: "comment_added",
        actorId: principal.userId,
        actorName: row.author_name,
        pageId: row.page_id,
        pagePath: row.page_path,
        details: { comment_id: row.id, parent_id: row.parent_id, mentions },
        now,
      });
    })();
    this.announce("comment-added", row, principal.userId);
    return toJson(row);
  }

  update(principal: Principal, commentId: string, body: unknown): CommentJson {
    const input = parseInput(updateCommentInput, body);
    const { row, workspace, role } = this.load(principal, commentId, "commenter");
    this.requireAuthorOrAdmin(principal, row, role);
    const mentions = resolveMentions(input.body, this.peopleWhoSee(workspace, row.page_path));
    const now = new Date().toISOString();
    this.deps.db
      .query("UPDATE comments SET body = ?, mentions = ?, updated_at = ? WHERE id = ?")
      .run(input.body, JSON.stringify(mentions), now, row.id);
    const updated = this.row(row.id)!;
    this.announce("comment-updated", updated, principal.userId);
    return toJson(updated);
  }

  delete(principal: Principal, commentId: string): void {
    const { row, role } = this.load(principal, commentId, "commenter");
    this.requireAuthorOrAdmin(principal, row, role);
    this.deps.db.query("DELETE FROM comments WHERE id = ?").run(row.id);
    this.announce("comment-deleted", row, principal.userId);
  }

  /** Resolves (or reopens) the thread the comment belongs to; a no-op when it already is. */
  setResolved(principal: Principal, commentId: string, resolved: boolean): CommentJson {
    const { row } = this.load(principal, commentId, "commenter");
    const root = row.parent_id === null ? row : this.row(row.parent_id)!;
    if ((root.resolved === 1) === resolved) return toJson(root);
    const now = new Date().toISOString();
    const actor = this.deps.users.byId(principal.userId);
    this.deps.db.transaction(() => {
      this.deps.db
        .query("UPDATE comments SET resolved = ?, resolved_by = ?, resolved_at = ?, updated_at = ? WHERE id = ?")
        .run(resolved ? 1 : 0, resolved ? principal.userId : null, resolved ? now : null, now, root.id);
      recordActivity(this.deps.db, {
        workspaceId: root.workspace_id,
        action: resolved ? "comment_resolved" : "comment_reopened",
        actorId: principal.userId,
        actorName: actor?.name ?? "",
        pageId: root.page_id,
        pagePath: root.page_path,
        details: { comment_id: root.id },
        now,
      });
    })();
    const updated = this.row(root.id)!;
    this.announce("comment-updated", updated, principal.userId);
    return toJson(updated);
  }

  /** The comment and the caller's role in its workspace: 404 unless they can read it, 403 below `min`. */
  private load(principal: Principal, commentId: string, min: EffectiveRole): { row: CommentRow; workspace: WorkspaceRow; role: EffectiveRole } {
    const row = isUlid(commentId) ? this.row(commentId) : null;
    if (!row) throw new NotFoundError("Comment not found");
    const workspace = this.deps.workspaces.byId(row.workspace_id);
    const role = workspace ? this.deps.permissions.principalRole(principal, workspace) : null;
    if (!workspace || role === null) throw new NotFoundError("Comment not found");
    // A thread on a page the caller cannot see does not exist for them, whatever its id.
    const vis = this.deps.restrictions.visibilityOf(principal, workspace, role);
    if (!vis.sees(row.page_path)) throw new NotFoundError("Comment not found");
    if (!atLeast(role, min)) throw new ForbiddenError(`This needs the ${min} role in the workspace`);
    if (min !== "viewer" && !vis.allows(row.page_path, "comment")) throw new ForbiddenError("This page's access list does not give you comment access");
    return { row, workspace, role };
  }

  /** Who may be @-mentioned on a page: the workspace's people who can see it (nobody is mentioned into a page hidden from them). */
  private peopleWhoSee(workspace: WorkspaceRow, pagePath: string) {
    const people = workspacePeople(this.deps.db, workspace);
    if (!this.deps.restrictions.hasRules(workspace)) return people;
    return people.filter((p) => this.deps.restrictions.visibilityOfUser(p.id, workspace, this.deps.permissions.roleIn(p.id, workspace)).sees(pagePath));
  }

  private requireAuthorOrAdmin(principal: Principal, row: CommentRow, role: EffectiveRole): void {
    if (row.author_id === principal.userId || atLeast(role, "admin")) return;
    throw new ForbiddenError("Only the comment's author or a workspace admin can change it");
  }

  private row(id: string): CommentRow | null {
    return this.deps.db.query<CommentRow, [string]>(`${SELECT} WHERE c.id = ?`).get(id);
  }

  /** The live page at that path, if the ledger has one. */
  private pageIdOf(workspaceId: string, path: string): string | null {
    return (
      this.deps.db
        .query<{ id: string }, [string, string]>("SELECT id FROM pages WHERE workspace_id = ? AND path = ? AND deleted_at IS NULL")
        .get(workspaceId, path)?.id ?? null
    );
  }

  private announce(type: "comment-added" | "comment-updated" | "comment-deleted", row: CommentRow, actor: string): void {
    this.deps.bus.publish({
      type,
      workspace_id: row.workspace_id,
      payload: {
        workspace_id: row.workspace_id,
        comment_id: row.id,
        parent_id: row.parent_id,
        page_path: row.page_path,
        resolved: row.resolved === 1,
        actor,
      },
    });
  }
}
