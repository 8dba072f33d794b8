/**
 * Parts of a page tree, cut from the whole one (tree.ts builds it). Kept apart from the builder so
 * a caller that only slices (the MCP tree tool) loads nothing of the ledger.
 */
import type { TreeNode } from "./tree.ts";

/**
 * A folder's part of the tree (`folder` "" is the root), `depth` levels deep (all of them when
 * undefined). Every folder in the answer counts its direct children (`child_count`); a folder at
 * the last level comes without `children`. An unknown folder has nothing under it.
 */
export function treeUnder(items: TreeNode[], folder: string, depth: number | undefined): TreeNode[] {
  const level = folder === "" ? items : folderChildren(items, folder);
  return cut(level, depth ?? Infinity);
}

/** The children of one folder of a tree (none for an unknown folder). */
export function folderChildren(items: TreeNode[], folder: string): TreeNode[] {
  for (const node of items) {
    if (node.type === "folder" && node.path === folder) return node.children ?? [];
    if (node.children && folder.startsWith(`${node.path}/`)) return folderChildren(node.children, folder);
  }
  return [];
}

/**
 * The deepest folder of a tree that is `folder` or holds it, matched without case as the access
 * rules are ("" when the tree holds none of them: the root).
 */
export function deepestFolder(items: TreeNode[], folder: string): string {
  const want = folder.toLowerCase();
  let best = "";
  const walk = (nodes: TreeNode[]): void => {
    for (const node of nodes) {
      if (node.type !== "folder") continue;
      const path = node.path.toLowerCase();
      if (path !== want && !want.startsWith(`${path}/`)) continue;
      if (path.length > best.length) best = node.path;
      if (path !== want && node.children) walk(node.children);
    }
  };
  walk(items);
  return best;
}

function cut(nodes: TreeNode[], depth: number): TreeNode[] {
  return nodes.map((node) => {
    if (!node.children) return node;
    const { children, ...rest } = node;
    const counted = { ...rest, child_count: children.length };
    return depth <= 1 ? counted : { ...counted, children: cut(children, depth - 1) };
  });
}
