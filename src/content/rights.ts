import { ForbiddenError } from "../core/errors.ts";
import { atLeast, type EffectiveRole } from "../access/roles.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { Actor, Origin, WriteGroup } from "./committed-write.ts";

/**
 * Who may do what with pages (docs/architecture.md §7): viewers and commenters read; editors edit existing
 * pages, upload and reorder, create when the workspace's `editor_can_create_pages` is on, delete
 * when `editor_can_delete_pages` is on, and move when they may create (a move puts the page at a
 * path where none was; it deletes nothing — same id, history and comments:
 * docs/decisions/page-moves.md); admins (and the Super Admin) do everything.
 */
type ContentRight = "read" | "edit" | "create" | "delete" | "move";

/** The caller of a ledger operation, after the workspace-level permission check. */
export interface ContentAccess {
  workspace: WorkspaceRow;
  role: EffectiveRole;
  actor: Actor;
  origin: Origin;
  /** Set while the writes belong to one group that history records as a single commit (committed-write.ts). */
  group?: WriteGroup;
}

function hasRight(access: Pick<ContentAccess, "workspace" | "role">, right: ContentRight): boolean {
  const { role, workspace } = access;
  if (right === "read") return atLeast(role, "viewer");
  if (atLeast(role, "admin")) return true;
  if (!atLeast(role, "editor")) return false;
  if (right === "create") return workspace.editor_can_create_pages === 1;
  if (right === "delete") return workspace.editor_can_delete_pages === 1;
  if (right === "move") return workspace.editor_can_create_pages === 1;
  return true;
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
