import type { Workspace } from "../api/types.ts";
import type { TreeRights } from "../screens/PageTree.tsx";

/** What the signed-in person may do in a workspace, from the role the server sent with it. */
export function canWrite(ws: Workspace | undefined): boolean {
  return !!ws && ["editor", "admin", "super_admin"].includes(ws.role ?? "");
}

function isAdmin(ws: Workspace | undefined): boolean {
  return !!ws && (ws.role === "admin" || ws.role === "super_admin");
}

/** What the person may do with pages here (docs/architecture.md §7: editors create/delete when the workspace allows it). */
export function treeRights(ws: Workspace | undefined): TreeRights {
  const edit = canWrite(ws);
  const create = isAdmin(ws) || (edit && ws?.editor_can_create_pages !== false);
  return { edit, create, delete: isAdmin(ws) || (edit && ws?.editor_can_delete_pages === true), move: create };
}
