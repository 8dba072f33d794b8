import { atLeast, type EffectiveRole } from "./roles.ts";

/**
 * Who may do what in a workspace (docs/architecture.md §7), the one rule the server enforces and sends to
 * clients: viewers read; commenters also comment; editors edit existing pages, upload and reorder,
 * create when the workspace's `editor_can_create_pages` is on, delete when `editor_can_delete_pages`
 * is on, and move when they may create (a move puts the page at a path where none was; it deletes
 * nothing — same id, history and comments: docs/decisions/page-moves.md); admins (and the Super
 * Admin) do everything. The names are recorded in docs/decisions/web-rights.md.
 */
export type ContentRight = "read" | "edit" | "create" | "delete" | "move";

/** The workspace's two switches for editors, as stored (0 or 1). */
interface EditorSwitches {
  editor_can_create_pages: number;
  editor_can_delete_pages: number;
}

export function roleHasRight(role: EffectiveRole | null, workspace: EditorSwitches, right: ContentRight): boolean {
  if (right === "read") return atLeast(role, "viewer");
  if (atLeast(role, "admin")) return true;
  if (!atLeast(role, "editor")) return false;
  if (right === "create") return workspace.editor_can_create_pages === 1;
  if (right === "delete") return workspace.editor_can_delete_pages === 1;
  if (right === "move") return workspace.editor_can_create_pages === 1;
  return true;
}

/** Everything the caller may do in a workspace, sent with each workspace object (`rights`). */
interface WorkspaceRights extends Record<ContentRight, boolean> {
  comment: boolean;
  admin: boolean;
  /** Set access lists: admins; editors too (where they have `edit`) when the workspace allows it. */
  manage_access: boolean;
}

/**
 * Whether the workspace lets editors set the access lists of folders and pages they have `edit` on
 * (`editors_manage_access` in its settings JSON; anything but `true` is off).
 */
export function editorsManageAccess(workspace: { settings: string }): boolean {
  try {
    const parsed: unknown = JSON.parse(workspace.settings);
    return typeof parsed === "object" && parsed !== null && (parsed as Record<string, unknown>).editors_manage_access === true;
  } catch {
    return false;
  }
}

export function workspaceRights(role: EffectiveRole | null, workspace: EditorSwitches & { settings: string }): WorkspaceRights {
  return {
    read: roleHasRight(role, workspace, "read"),
    comment: atLeast(role, "commenter"),
    edit: roleHasRight(role, workspace, "edit"),
    create: roleHasRight(role, workspace, "create"),
    delete: roleHasRight(role, workspace, "delete"),
    move: roleHasRight(role, workspace, "move"),
    admin: atLeast(role, "admin"),
    manage_access: atLeast(role, "admin") || (atLeast(role, "editor") && editorsManageAccess(workspace)),
  };
}
