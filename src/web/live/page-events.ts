/**
 * In-app notifications that a page changed on the server — from this tab (a rename in the tree)
 * or from the live stream (someone else). The open editor listens and re-reads the page.
 */
export interface PageChange {
  workspace_id?: string;
  slug?: string;
  path: string;
  /** Set when the change is known to come from someone else (shown by name). */
  actor?: { id: string | null; name: string };
  type: "page-created" | "page-updated" | "page-deleted" | "page-moved";
  old_path?: string;
}

const listeners = new Set<(c: PageChange) => void>();

export function emitPageChange(change: PageChange): void {
  for (const l of listeners) l(change);
}

export function onPageChange(listener: (c: PageChange) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
