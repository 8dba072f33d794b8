/**
 * Workspace list and page tree, fetched once and shared by the shell and the editor; `refresh`
 * after a change (create, rename, a live event) re-reads them.
 */
import { useCallback, useEffect, useState } from "react";
import { ApiError, get } from "../api/client.ts";
import type { List, TreeNode, Workspace } from "../api/types.ts";

export function useWorkspaces() {
  const [items, setItems] = useState<Workspace[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      setItems((await get<List<Workspace>>("/api/v1/workspaces")).items);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return { items, error, reload: load };
}

/** Normalises the tree answer: an array of nodes, or an object holding one under items/children/tree. */
export function normalizeTree(raw: unknown): TreeNode[] {
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
    const isFolder = n.type === "folder" || n.kind === "folder" || (children.length > 0 && !path.endsWith(".md"));
    const name = String(n.name ?? path.split("/").pop() ?? path);
    return {
      name,
      path,
      title: String(n.title ?? name.replace(/\.md$/, "")),
      page_id: isFolder && !path.endsWith(".md") && !n.page_id ? null : pageId,
      kind: isFolder ? "folder" : "page",
      children,
    };
  });
}

export function useTree(slug: string | undefined) {
  const [tree, setTree] = useState<TreeNode[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    if (!slug) return;
    try {
      setTree(normalizeTree(await get(`/api/v1/content/${encodeURIComponent(slug)}/tree`)));
      setError(null);
    } catch (e) {
      // Until the content API exists the tree is simply empty rather than an error.
      if (e instanceof ApiError && e.status === 404 && e.message === "No such endpoint") setTree([]);
      else setError(e);
    }
  }, [slug]);
  useEffect(() => {
    setTree(null);
    void load();
  }, [load]);
  return { tree, error, reload: load };
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
