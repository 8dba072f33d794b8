import type { z } from "zod";
import type { Db } from "../db/database.ts";
import { ValidationError } from "../core/errors.ts";
import { parseInput } from "../core/validate.ts";
import { titleFromPath } from "./page-file.ts";
import type { PageRecords, PageRow } from "./page-records.ts";
import { normalizeFolderPath, parentOf } from "./paths.ts";
import { reorderInput, type treeNodeOutput } from "./schemas.ts";

/**
 * The page tree (docs/architecture.md §5): nested by folder; within a level ordered by `sort_order` (set by
 * reorder), then `nav_order` (frontmatter), then title. A folder's `index.md` is the folder's page:
 * it gives the folder its title, id and order and is not listed again among the children. A node's
 * type is the documented output schema's (`treeNodeOutput`), so the two cannot differ.
 */
export type TreeNode = z.infer<typeof treeNodeOutput>;

const isIndex = (path: string) => path === "index.md" || path.endsWith("/index.md");

/** The level a page is ordered in: a folder's index.md sits where its folder sits. */
export function levelOf(path: string): string {
  return isIndex(path) && path.includes("/") ? parentOf(parentOf(path)) : parentOf(path);
}

export function buildTree(rows: PageRow[]): TreeNode[] {
  const root: TreeNode = folderNode("");
  const folders = new Map<string, TreeNode>([["", root]]);
  const folder = (path: string): TreeNode => {
    let node = folders.get(path);
    if (node) return node;
    node = folderNode(path);
    folders.set(path, node);
    folder(parentOf(path)).children!.push(node);
    return node;
  };
  for (const row of rows) {
    if (isIndex(row.path) && row.path.includes("/")) {
      Object.assign(folder(parentOf(row.path)), pageFields(row));
      continue;
    }
    folder(parentOf(row.path)).children!.push({
      type: "page",
      name: row.path.slice(row.path.lastIndexOf("/") + 1),
      path: row.path,
      ...pageFields(row),
    });
  }
  sortLevel(root.children!);
  return root.children!;
}

/**
 * Marks the folders and pages that have their own access list (docs/decisions/restricted-folders.md),
 * for whoever sees them: `keys` are lower-cased, folders ending in `/`.
 */
export function markRestricted(tree: TreeNode[], keys: ReadonlySet<string> | undefined): TreeNode[] {
  if (!keys || keys.size === 0) return tree;
  const walk = (nodes: TreeNode[]) => {
    for (const node of nodes) {
      const key = (node.type === "folder" ? `${node.path}/` : node.path).toLowerCase();
      if (keys.has(key)) node.restricted = true;
      if (node.children) walk(node.children);
    }
  };
  walk(tree);
  return tree;
}

/** What a page gives its node; a folder's index.md gives the same to its folder. */
function pageFields(row: PageRow): Pick<TreeNode, "page_id" | "title" | "sort_order" | "nav_order" | "publish" | "status"> {
  return {
    page_id: row.id,
    title: row.title,
    sort_order: row.sort_order,
    nav_order: row.nav_order,
    publish: row.publish === 1,
    status: row.status,
  };
}

function folderNode(path: string): TreeNode {
  return {
    type: "folder",
    name: path.slice(path.lastIndexOf("/") + 1),
    path,
    page_id: null,
    title: path === "" ? "" : titleFromPath(path),
    sort_order: null,
    nav_order: null,
    publish: false,
    status: null,
    children: [],
  };
}

const byNullable = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a - b);
// One collator for every comparison: `localeCompare(b, "en", options)` builds a new one per call,
// which made sorting a 1,000-page tree cost ~45 ms.
const titleOrder = new Intl.Collator("en", { sensitivity: "base" });

function sortLevel(nodes: TreeNode[]): void {
  nodes.sort(
    (a, b) =>
      byNullable(a.sort_order, b.sort_order) ||
      byNullable(a.nav_order, b.nav_order) ||
      titleOrder.compare(a.title, b.title) ||
      a.path.localeCompare(b.path),
  );
  for (const n of nodes) if (n.children) sortLevel(n.children);
}

/**
 * Applies a reorder request: every id must be a live page of that level (a folder's index counts).
 * Returns the paths of the pages whose `sort_order` actually changed.
 */
/** `editable`: the pages the caller may change; any other (a hidden one among them) is as unknown as a missing id. */
export function reorderPages(db: Db, records: PageRecords, workspaceId: string, body: unknown, editable: (path: string) => boolean = () => true): string[] {
  const input = parseInput(reorderInput, body);
  const parent = normalizeFolderPath(input.parent_path ?? "");
  const rows = new Map(records.liveIn(workspaceId).filter((r) => editable(r.path)).map((r) => [r.id, r]));
  input.order.forEach((entry, i) => {
    const row = rows.get(entry.id);
    if (!row) throw new ValidationError(`order.${i}.id: no page with this id in the workspace`, `order.${i}.id`);
    if (levelOf(row.path) !== parent) {
      throw new ValidationError(`order.${i}.id: the page is not directly under parent_path`, `order.${i}.id`);
    }
  });
  const changed = new Set<string>();
  db.transaction(() => {
    for (const entry of input.order) {
      const row = rows.get(entry.id)!;
      if (row.sort_order === entry.sort_order) continue;
      records.setSortOrder(entry.id, entry.sort_order);
      row.sort_order = entry.sort_order; // an id listed twice: the last entry wins, once
      changed.add(row.path);
    }
  })();
  return [...changed];
}
