/**
 * Workspace list and page tree, fetched once and shared by the shell and the editor; `refresh`
 * after a change (create, rename, a live event) re-reads them.
 *
 * A small workspace's tree comes whole, every folder open. A large one (more than LAZY_TREE_FROM
 * pages) comes a folder at a time: the root and the folders on the way to the open page first,
 * any other folder when it is opened — a 5,000-page tree in one answer took seconds to fetch and render.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError } from "../api/client.ts";
import { fetchTree } from "../api/tree.ts";
import { listWorkspaces, takeWorkspaces } from "../api/workspaces.ts";
import type { TreeNode, Workspace } from "../api/types.ts";

export function useWorkspaces() {
  const [items, setItems] = useState<Workspace[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The first load takes the list read during sign-in; a reload always reads afresh.
  const load = useCallback(async (first = false) => {
    try {
      setItems((await (first ? takeWorkspaces() : listWorkspaces())).items);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => {
    void load(true);
  }, [load]);
  const reload = useCallback(() => load(), [load]);
  return { items, error, reload };
}

/** Above this many pages the tree loads by folder. */
const LAZY_TREE_FROM = 500;

/** The folders that hold `path`, outermost first ("a/b/c.md" → ["a", "a/b"]). */
function foldersAbove(path: string | undefined): string[] {
  if (!path) return [];
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** The tree with `folder`'s children put in place (the folder is loaded from then on). */
function graft(tree: TreeNode[], folder: string, children: TreeNode[]): TreeNode[] {
  return tree.map((n) => {
    if (n.kind !== "folder") return n;
    if (n.path === folder) return { ...n, children, child_count: children.length, unloaded: false };
    if (folder.startsWith(n.path + "/")) return { ...n, children: graft(n.children, folder, children) };
    return n;
  });
}

export function useTree(workspace: Pick<Workspace, "slug" | "page_count"> | undefined, current?: string) {
  const slug = workspace?.slug;
  const lazy = (workspace?.page_count ?? 0) > LAZY_TREE_FROM;
  const [tree, setTree] = useState<TreeNode[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Lazy mode: the folders whose children were asked for, re-read together on a reload.
  const opened = useRef(new Set<string>());
  const currentRef = useRef(current);
  currentRef.current = current;

  const load = useCallback(async () => {
    if (!slug) return;
    try {
      if (!lazy) {
        setTree(await fetchTree(slug));
      } else {
        for (const f of foldersAbove(currentRef.current)) opened.current.add(f);
        // Outermost first, so each level grafts onto one already in place.
        const folders = [...opened.current].sort((a, b) => a.split("/").length - b.split("/").length);
        const [root, ...levels] = await Promise.all([fetchTree(slug, ""), ...folders.map((f) => fetchTree(slug, f))]);
        setTree(levels.reduce((t, children, i) => graft(t, folders[i]!, children), root!));
      }
      setError(null);
    } catch (e) {
      // Until the content API exists the tree is simply empty rather than an error.
      if (e instanceof ApiError && e.status === 404 && e.message === "No such endpoint") setTree([]);
      else setError(e);
    }
  }, [slug, lazy]);

  /** Loads a folder's children (lazy mode; a loaded folder is left as it is). */
  const expand = useCallback(
    async (folder: string) => {
      if (!slug || !lazy || opened.current.has(folder)) return;
      opened.current.add(folder);
      try {
        const children = await fetchTree(slug, folder);
        setTree((t) => t && graft(t, folder, children));
      } catch (e) {
        opened.current.delete(folder);
        setError(e);
      }
    },
    [slug, lazy],
  );

  useEffect(() => {
    opened.current = new Set();
    setTree(null);
    void load();
  }, [load]);

  // A page opened in a folder not loaded yet (from search, a link): its folders load.
  useEffect(() => {
    if (!lazy || tree === null) return;
    for (const f of foldersAbove(current)) if (!opened.current.has(f)) void expand(f);
  }, [lazy, current, tree === null, expand]); // eslint-disable-line react-hooks/exhaustive-deps

  /** The whole tree: the one loaded when it is whole, otherwise asked for (dialogs that list every folder). */
  const wholeTree = useCallback(async (): Promise<TreeNode[]> => (!lazy && tree ? tree : fetchTree(slug!)), [lazy, tree, slug]);

  return { tree, error, reload: load, expand, lazy, wholeTree };
}

/** Path of a new page from its title: lower-case words joined by dashes, under `folder`. */
export function pathForTitle(title: string, folder = ""): string {
  const stem =
    title
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "untitled";
  return `${folder ? folder.replace(/\/+$/, "") + "/" : ""}${stem}.md`;
}
