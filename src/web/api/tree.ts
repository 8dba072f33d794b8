/**
 * The page tree: whole (small workspaces) or a folder's direct children at a time (large ones:
 * `?folder=&depth=1`, each folder with its `child_count`), and the reorder of one level.
 */
import { get, post } from "./client.ts";
import { contentBase } from "./pages.ts";
import type { TreeNode } from "./types.ts";

export interface ReorderBody {
  parent_path: string;
  order: Array<{ id: string; sort_order: number }>;
}

/** The whole tree, or with `folder` only that folder's direct children. */
export async function fetchTree(slug: string, folder?: string): Promise<TreeNode[]> {
  const query = folder === undefined ? "" : `?folder=${encodeURIComponent(folder)}&depth=1`;
  return normalizeTree(await get(`${contentBase(slug)}/tree${query}`));
}

export const reorder = (slug: string, body: ReorderBody) => post<void>(`${contentBase(slug)}/reorder`, body);

/** Normalises the tree answer: an array of nodes, or an object holding one under items/children/tree. */
function normalizeTree(raw: unknown): TreeNode[] {
  const list = Array.isArray(raw)
    ? raw
    : raw && typeof raw === "object"
      ? ((raw as Record<string, unknown>).items ?? (raw as Record<string, unknown>).children ?? (raw as Record<string, unknown>).tree ?? [])
      : [];
  if (!Array.isArray(list)) return [];
  return list.map((n: Record<string, unknown>): TreeNode => {
    const children = normalizeTree(n.children ?? []);
    const path = String(n.path ?? n.name ?? "");
    const pageId = (n.page_id ?? n.id ?? null) as string | null;
    const childCount = typeof n.child_count === "number" ? n.child_count : undefined;
    const isFolder = n.type === "folder" || n.kind === "folder" || (children.length > 0 && !path.endsWith(".md"));
    const name = String(n.name ?? path.split("/").pop() ?? path);
    const node: TreeNode = {
      name,
      path,
      title: String(n.title ?? name.replace(/\.md$/, "")),
      page_id: isFolder && !path.endsWith(".md") && !n.page_id ? null : pageId,
      kind: isFolder ? "folder" : "page",
      children,
    };
    if (childCount !== undefined) node.child_count = childCount;
    if (n.restricted === true) node.restricted = true;
    // A folder answered without its children (past the asked depth) is loaded when it opens.
    if (isFolder && n.children === undefined && childCount !== undefined) node.unloaded = true;
    return node;
  });
}
