import { NotFoundError } from "../core/errors.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { ShareLinks } from "../access/share-links.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import { HIDDEN, levelName, levelRank, LINK_MAX_LEVEL, roleCap, type AccessLevel } from "../access/restrictions/levels.ts";
import { OPEN, type PageVisibility } from "../access/restrictions/visibility.ts";
import type { EffectiveRole } from "../workspaces/roles.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { Users } from "../identity/users.ts";
import type { ContentLedger } from "./ledger.ts";
import type { PageRecords } from "./page-records.ts";
import type { PageJson } from "./page-records.ts";

/** A visibility that sees nothing: the page read then answers exactly as for a missing page. */
const NOTHING: PageVisibility = { restricted: true, sees: () => false, allows: () => false, holdsHidden: () => true };

const LINK_LEVEL: Record<"viewer" | "commenter" | "editor", number> = { viewer: 1, commenter: 2, editor: 3 };

/**
 * Opening a page share link (docs/decisions/restricted-folders.md, "Share links"). A member who
 * sees the page reads it with their own access, as anywhere else. Anyone else — signed out, or a
 * member the page is hidden from — reads it at the link's level, capped at `comment` and by the
 * page's `link:anyone` allowance, read from the rules at this opening: where the allowance is
 * missing (a restricted page without it, a page moved into such a folder, an allowance turned off)
 * the link answers exactly as one to a missing page, after the same lookups.
 */
export class SharedPages {
  constructor(
    private readonly deps: {
      shareLinks: ShareLinks;
      ledger: ContentLedger;
      pages: PageRecords;
      permissions: Permissions;
      users: Users;
      restrictions: Restrictions;
      /** The page body as sanitized HTML (the composition root lends the published site's renderer). */
      render: (workspaceSlug: string, path: string, body: string) => string;
    },
  ) {}

  open(principal: Principal | null, token: string): { page: PageJson; html: string; level: AccessLevel; via: "access" | "link" } {
    const { page, level, via, slug } = this.read(principal, token);
    return { page, html: this.deps.render(slug, page.path, page.content ?? ""), level, via };
  }

  /**
   * What the link lets its holder do on its page at this opening, without reading the page (the
   * comments through a link ask this): null wherever the link opens nothing — unknown, revoked,
   * expired or a join link, a deleted page, a page whose rules do not allow `link:anyone`.
   */
  grant(principal: Principal | null, token: string): { workspace: WorkspaceRow; pageId: string; path: string; level: AccessLevel; via: "access" | "link" } | null {
    const found = this.resolve(principal, token);
    if (!found || !found.live) return null;
    const level = found.own ? found.own.level : levelName(found.linkLevel);
    if (level === null) return null;
    return { workspace: found.workspace, pageId: found.pageId, path: found.path, level, via: found.own ? "access" : "link" };
  }

  private resolve(principal: Principal | null, token: string) {
    const { shareLinks, pages, permissions, restrictions } = this.deps;
    const target = shareLinks.pageTarget(token);
    if (!target) return null;
    const { workspace } = target;
    const row = pages.byId(target.pageId);
    const live = row !== null && row.workspace_id === workspace.id && row.deleted_at === null;
    // A deleted page goes the same way as a hidden one, to the same answer: the link's holder
    // cannot tell "deleted" from "not for you" by what is asked. (A page purged from the records
    // has no path left; its id stands in, with nothing to find there.)
    const path = row?.path ?? `${target.pageId}.md`;

    const role = principal ? permissions.principalRole(principal, workspace) : null;
    if (principal && role !== null) {
      const vis = restrictions.visibilityOf(principal, workspace, role);
      if (live && vis.sees(path)) return { workspace, pageId: target.pageId, path, live, own: { role, vis, level: ownLevel(vis, path, role) }, linkLevel: HIDDEN };
    }
    const allowed = Math.min(LINK_LEVEL[target.role], LINK_MAX_LEVEL, restrictions.linkLevel(workspace, path));
    return { workspace, pageId: target.pageId, path, live, own: null, linkLevel: live ? allowed : HIDDEN };
  }

  private read(principal: Principal | null, token: string): { page: PageJson; level: AccessLevel; via: "access" | "link"; slug: string } {
    const { ledger, users } = this.deps;
    const found = this.resolve(principal, token);
    if (!found) throw new NotFoundError("Page not found");
    const { workspace, path, own } = found;
    if (principal && own) {
      const user = users.byId(principal.userId);
      const access = { workspace, role: own.role, visibility: own.vis, actor: { id: principal.userId, name: user?.name ?? "" }, origin: "API" as const };
      return { page: ledger.read(access, path), level: own.level, via: "access", slug: workspace.slug };
    }
    const level = found.linkLevel;
    // The read itself gives the missing answer, after the same lookup as for a page that is not there
    // (and never a page made later at a deleted page's path).
    const access = { workspace, role: "viewer" as const, visibility: level > HIDDEN ? OPEN : NOTHING, actor: { id: "", name: "" }, origin: "API" as const };
    return { page: ledger.read(access, path), level: levelName(level)!, via: "link", slug: workspace.slug };
  }
}

/** A member's own level on a page they see: the highest their rules allow, capped by their role. */
function ownLevel(vis: PageVisibility, path: string, role: EffectiveRole): AccessLevel {
  const cap = roleCap(role);
  for (const level of ["edit", "comment", "view"] as const) if (levelRank(level) <= cap && vis.allows(path, level)) return level;
  return "view";
}
