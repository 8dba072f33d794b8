import { manifestInput, pagePathInput, treeInput } from "../../content/schemas.ts";
import { normalizeFolderPath } from "../../content/paths.ts";
import type { TreeNode } from "../../content/tree.ts";
import { folderChildren } from "../../content/tree-slice.ts";
import { createWorkspaceInput } from "../../workspaces/workspace-schemas.ts";
import { z } from "zod";
import { contextOutput, manifestOutput, searchOutput, treeOutput, workspaceRecord, workspacesOutput } from "../outputs.ts";
import { MAX_RESULT_CHARS } from "../budget.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { listWorkspacesArgs, searchArgs } from "../tool-inputs.ts";

/** Finding one's way: search, a page's neighbourhood, workspaces, the tree, the manifest. */
export const discoveryTools = [
  defineTool({
    name: "quire_search",
    title: "Search pages",
    description: "Full-text search in a workspace's pages; returns path, title, a snippet and a score per hit, best first.",
    input: searchArgs,
    output: searchOutput,
    workspace: true,
    scope: "read",
    rate: "search",
    annotations: READ_ONLY,
    run: (call, args) => {
      const found = call.services.search.search(call.principal, call.workspaceSlug(), { q: args.query, limit: args.limit });
      return {
        items: found.items.map((h) => ({ path: h.path, title: h.title, snippet: h.snippet, score: h.score })),
        ...(found.indexing ? { indexing: { ...found.indexing } } : {}),
      };
    },
  }),
  defineTool({
    name: "quire_get_context",
    title: "Page context",
    description: "A page's neighbourhood without bodies: the page's metadata, its parent (the folder's index page), siblings, the pages it links to and the pages linking to it.",
    input: pagePathInput,
    output: contextOutput,
    workspace: true,
    scope: "read",
    rate: "content_read",
    annotations: READ_ONLY,
    run: (call, args) => call.services.agentPages.context(call.access(), args.path),
  }),
  defineTool({
    name: "quire_list_workspaces",
    title: "List workspaces",
    description: "The workspaces this API key reaches, with the owner's role and page count. Use a slug as the workspace argument of other tools.",
    input: listWorkspacesArgs,
    output: workspacesOutput,
    workspace: false,
    scope: "read",
    annotations: READ_ONLY,
    run: (call, args) => {
      const list = call.services.workspaceService.list(call.principal, args);
      return { items: list.items.map((w) => ({ slug: w.slug, name: w.name, role: w.role, page_count: w.page_count })), next_cursor: list.next_cursor };
    },
  }),
  defineTool({
    name: "quire_get_tree",
    title: "Page tree",
    description: "The workspace's page tree (folders and pages in navigation order), optionally only under a folder. A very large tree is cut to fewer levels (truncated: true); ask again with a folder.",
    input: treeInput,
    output: treeOutput,
    workspace: true,
    scope: "read",
    rate: "content_read",
    annotations: READ_ONLY,
    run: (call, args) => {
      let items = call.services.ledger.tree(call.access());
      if (args.folder !== undefined) {
        const folder = normalizeFolderPath(args.folder, "folder");
        if (folder !== "") items = folderChildren(items, folder);
      }
      return fitTree(items);
    },
  }),
  defineTool({
    name: "quire_get_manifest",
    title: "Workspace manifest",
    description: "The workspace at a glance for planning: its name, every page's path, title, description and tags (paginated), its site versions and theme.",
    input: manifestInput,
    output: manifestOutput,
    workspace: true,
    scope: "read",
    rate: "content_read",
    annotations: READ_ONLY,
    run: (call, args) => {
      const access = call.access();
      const { pages, next_cursor } = call.services.agentPages.manifest(access, args.limit, args.cursor);
      const ws = access.workspace;
      const versions = call.services.site.listVersions(call.principal, ws.slug).items;
      const { theme } = call.services.site.getTheme(call.principal, ws.slug);
      return { workspace: { slug: ws.slug, name: ws.name, description: ws.description ?? "" }, pages, next_cursor, versions, theme };
    },
  }),
  defineTool({
    name: "quire_get_workspace",
    title: "Workspace details",
    description: "The workspace record: name, slug, description, the owner's role, git and sync settings, page and member counts.",
    input: z.strictObject({}),
    output: workspaceRecord,
    workspace: true,
    scope: "read",
    annotations: READ_ONLY,
    run: (call) => call.services.workspaceService.get(call.principal, call.workspaceSlug()),
  }),
  defineTool({
    name: "quire_create_workspace",
    title: "Create a workspace",
    description: "Create a workspace in the key's organization (needs the organization's Super Admin). Optionally cloned from a git remote.",
    input: createWorkspaceInput,
    output: workspaceRecord,
    workspace: false,
    scope: "write",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (call, args) => call.services.workspaceService.create(call.principal, args),
  }),
];

/** Drops the deepest levels until the tree fits the result budget. */
function fitTree(items: TreeNode[]): { items: TreeNode[]; truncated: boolean; hint?: string } {
  if (JSON.stringify(items).length <= MAX_RESULT_CHARS) return { items, truncated: false };
  for (let depth = 8; depth >= 1; depth--) {
    const cut = prune(items, depth);
    if (JSON.stringify(cut).length <= MAX_RESULT_CHARS) return { items: cut, truncated: true, hint: `Only ${depth} level(s) shown; pass folder to see deeper.` };
  }
  const top = prune(items, 1);
  let n = top.length;
  while (n > 1 && JSON.stringify(top.slice(0, n)).length > MAX_RESULT_CHARS) n = Math.floor(n / 2);
  return { items: top.slice(0, n), truncated: true, hint: "Only the first entries of the top level are shown; use quire_list_pages to page through everything." };
}

function prune(items: TreeNode[], depth: number): TreeNode[] {
  return items.map((n) => {
    if (!n.children) return n;
    if (depth <= 1) return { ...n, children: [] };
    return { ...n, children: prune(n.children, depth - 1) };
  });
}
