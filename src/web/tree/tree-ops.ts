/**
 * Pure helpers behind the page tree's management: where a node sits, what a reorder request looks
 * like after a drop or a "move up", and where a page lands when moved into a folder. Kept free of
 * React so they can be tested on their own.
 */
import type { TreeNode } from "../api/types.ts";
import type { ReorderBody } from "../api/tree.ts";

function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** The file of a node's page: a page's own path, a folder's index.md, or null for a bare folder. */
export function pagePathOf(node: TreeNode): string | null {
  if (node.kind === "page") return node.path;
  if (node.page_id) return node.path.endsWith(".md") ? node.path : `${node.path}/index.md`;
  return null;
}

/** The list of nodes directly under `folder` ("" is the root), or null when there is no such folder. */
export function levelOf(tree: TreeNode[], folder: string): TreeNode[] | null {
  if (folder === "") return tree;
  for (const n of tree) {
    if (n.kind !== "folder") continue;
    if (n.path === folder) return n.children;
    if (folder.startsWith(n.path + "/")) return levelOf(n.children, folder);
  }
  return null;
}

export function findNode(tree: TreeNode[], path: string): TreeNode | null {
  for (const n of tree) {
    if (n.path === path) return n;
    if (n.kind === "folder" && path.startsWith(n.path + "/")) {
      const found = findNode(n.children, path);
      if (found) return found;
    }
  }
  return null;
}


/**
 * The order of one level with `moved` placed before `before` (or last when `before` is null).
 * Only nodes with a page id can carry an order; bare folders keep sorting after them.
 */
export function reorderBody(level: TreeNode[], parent: string, movedId: string, beforeId: string | null): ReorderBody {
  const ids = level.map((n) => n.page_id).filter((id): id is string => !!id && id !== movedId);
  const at = beforeId === null ? ids.length : ids.indexOf(beforeId);
  ids.splice(at < 0 ? ids.length : at, 0, movedId);
  return { parent_path: parent, order: ids.map((id, i) => ({ id, sort_order: (i + 1) * 10 })) };
}

/** The reorder that moves a node one place up (-1) or down (+1) in its level, or null at an edge. */
export function stepBody(tree: TreeNode[], node: TreeNode, step: -1 | 1): ReorderBody | null {
  if (!node.page_id) return null;
  const parent = parentOf(node.path);
  const level = (levelOf(tree, parent) ?? []).filter((n) => n.page_id);
  const i = level.findIndex((n) => n.page_id === node.page_id);
  const j = i + step;
  if (i < 0 || j < 0 || j >= level.length) return null;
  const ids = level.map((n) => n.page_id!);
  [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  return { parent_path: parent, order: ids.map((id, k) => ({ id, sort_order: (k + 1) * 10 })) };
}

/** Where a page file goes when moved into `folder` ("" is the root). */
export function pathInFolder(pagePath: string, folder: string): string {
  return folder ? `${folder.replace(/\/+$/, "")}/${baseName(pagePath)}` : baseName(pagePath);
}

/** Every folder of the tree, for the "move to" picker. */
export function foldersOf(tree: TreeNode[], out: string[] = [""]): string[] {
  for (const n of tree) {
    if (n.kind === "folder") {
      out.push(n.path);
      foldersOf(n.children, out);
    }
  }
  return out;
}

export type DropPlace = "before" | "after" | "inside";

/** What a drop means: a move into a folder, or a place in a level (a move first when the level differs). */
export function dropPlan(
  tree: TreeNode[],
  dragged: TreeNode,
  target: TreeNode,
  place: DropPlace,
): { moveTo: string | null; reorder: { parent: string; beforeId: string | null } | null } | null {
  if (dragged.path === target.path || !dragged.page_id) return null;
  const draggedPage = pagePathOf(dragged);
  if (place === "inside") {
    if (target.kind !== "folder" || dragged.kind !== "page" || !draggedPage) return null;
    if (parentOf(dragged.path) === target.path) return null;
    return { moveTo: pathInFolder(draggedPage, target.path), reorder: null };
  }
  const parent = parentOf(target.path);
  const level = levelOf(tree, parent) ?? [];
  const ids = level.filter((n) => n.page_id && n.page_id !== dragged.page_id);
  const ti = ids.findIndex((n) => n.path === target.path);
  const before = !target.page_id ? undefined : place === "before" ? target : ids[ti + 1];
  const sameLevel = parentOf(dragged.path) === parent;
  // A folder (with its pages) is moved only within its own level here.
  if (!sameLevel && dragged.kind !== "page") return null;
  return {
    moveTo: sameLevel ? null : pathInFolder(draggedPage!, parent),
    reorder: { parent, beforeId: before?.page_id ?? null },
  };
}

/** Every page file in a node: a page itself, or a folder's index page and every page below it. */
export function pagesUnder(node: TreeNode, out: string[] = []): string[] {
  const own = pagePathOf(node);
  if (own) out.push(own);
  if (node.kind === "folder") for (const c of node.children) pagesUnder(c, out);
  return out;
}

/**
 * The folders a node can be moved into: every folder but its current one, itself and those inside
 * it (a folder cannot go into itself).
 */
export function moveTargets(tree: TreeNode[], node: TreeNode): string[] {
  const here = parentOf(node.kind === "page" ? node.path : node.path.replace(/\/index\.md$/, ""));
  return foldersOf(tree).filter((f) => f !== here && (node.kind === "page" || (f !== node.path && !f.startsWith(node.path + "/"))));
}

/**
 * The page moves that put `node` into `folder`. The move API moves one page at a time, so a folder
 * is moved as its pages, each keeping its place below the folder's name (a folder without an index
 * page has no record of its own to move).
 */
export function movePlan(node: TreeNode, folder: string): Array<{ from: string; to: string }> {
  if (node.kind === "page") return [{ from: node.path, to: pathInFolder(node.path, folder) }];
  const root = folder ? `${folder.replace(/\/+$/, "")}/${baseName(node.path)}` : baseName(node.path);
  return pagesUnder(node).map((from) => ({ from, to: root + from.slice(node.path.length) }));
}
