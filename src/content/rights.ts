import { ForbiddenError, NotFoundError } from "../core/errors.ts";
import type { EffectiveRole } from "../workspaces/roles.ts";
import { roleHasRight, type ContentRight } from "../workspaces/rights.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { Actor, Origin, WriteGroup } from "./committed-write.ts";
import type { PageVisibility } from "../access/restrictions/visibility.ts";
import type { AccessLevel } from "../access/restrictions/levels.ts";
import { matchKey } from "../access/restrictions/rules.ts";


/** The caller of a ledger operation, after the workspace-level permission check. */
export interface ContentAccess {
  workspace: WorkspaceRow;
  role: EffectiveRole;
  actor: Actor;
  origin: Origin;
  /** What the caller may see and do under the workspace's restricted folders (docs/decisions/restricted-folders.md). */
  visibility: PageVisibility;
  /** The folders (ending in `/`) and pages with an access list, lower-cased; the tree marks them. Absent: none marked. */
  ruleKeys?: ReadonlySet<string>;
  /** Set while the writes belong to one group that history records as a single commit (committed-write.ts). */
  group?: WriteGroup;
}

function hasRight(access: Pick<ContentAccess, "workspace" | "role">, right: ContentRight): boolean {
  return roleHasRight(access.role, access.workspace, right);
}

const NEEDS: Record<ContentRight, string> = {
  read: "Reading pages needs a role in the workspace",
  edit: "Editing pages needs the editor role",
  create: "Creating pages needs the editor role (and this workspace lets editors create pages only when enabled)",
  delete: "Deleting pages needs the admin role, or the editor role when the workspace allows editors to delete",
  move: "Moving pages needs the admin role, or the editor role when the workspace allows editors to create pages",
};

export function assertRight(access: Pick<ContentAccess, "workspace" | "role">, right: ContentRight): void {
  if (!hasRight(access, right)) throw new ForbiddenError(NEEDS[right]);
}

/**
 * The page's restriction (docs/decisions/restricted-folders.md): a page or folder the caller may not
 * see answers exactly as a missing one; one they see but whose access list does not reach `level`
 * is a 403 that names no one.
 */
export function assertPageLevel(access: Pick<ContentAccess, "visibility">, path: string, level: AccessLevel): void {
  if (!access.visibility.restricted) return;
  if (!access.visibility.sees(path)) throw new NotFoundError("Page not found");
  if (!access.visibility.allows(path, level)) throw new ForbiddenError(`This page's access list does not give you ${level} access`);
}

/**
 * The one answer to a page landing (a create, an upsert, an import, a move's destination, a trash
 * restore to a chosen path) where a writer under restrictions may not put it: a new folder inside
 * one that holds something hidden from them — a folder that does not exist and one a rule hides
 * alike — or the path of a page a rule hides from them. The cases must read the same, or a write
 * would tell a hidden folder from a new one (docs/decisions/restricted-folders.md, "Writing into a
 * folder you cannot see").
 */
const LANDING_REFUSED =
  "You cannot create a page at this path: while folders are restricted, a page goes into a folder you can see, or into a new folder only inside one that holds nothing hidden from you (an admin can create it)";

/**
 * Where a page may land for the caller. Without restrictions, anywhere the role allows. Under
 * restrictions, its folder F is one of the caller's own tree (`deepestSeen(F)` answers F), or F is
 * new to them and A, the deepest folder above F that their tree holds (`deepestSeen(F)`, the root
 * at least), holds no rule hidden from them in a sub-folder: the answer then depends on A alone,
 * which the caller sees, never on F's name. The path must be one no rule hides from them, and its
 * access list must give them `edit`.
 */
export function assertLanding(access: Pick<ContentAccess, "visibility">, path: string, deepestSeen: (folder: string) => string): void {
  const vis = access.visibility;
  if (!vis.restricted) return;
  const slash = path.lastIndexOf("/");
  if (slash !== -1) {
    const folder = path.slice(0, slash);
    const seen = deepestSeen(folder);
    if (matchKey(seen) !== matchKey(folder) && vis.holdsHidden(seen)) throw new ForbiddenError(LANDING_REFUSED);
  }
  if (!vis.sees(path)) throw new ForbiddenError(LANDING_REFUSED);
  if (!vis.allows(path, "edit")) throw new ForbiddenError("This page's access list does not give you edit access");
}
