import type { EventBus, PageSnapshot } from "../core/event-bus.ts";
import { RECONCILE_ACTOR } from "./reconcile-apply.ts";
import type { PageChange, ReconciledPass, ReconcileSource, ScannedFile } from "./reconcile-pass.ts";

/** The last phase of a reconcile pass, after its database commit: telling the rest of the server. */

/**
 * Page events (one `bulk-sync` when a pass changed several pages, the page's own event otherwise)
 * and search updates (page by page, or one `reset` with `everything` for a large pass).
 */
export function announceChanges(bus: EventBus, workspaceId: string, changes: PageChange[], everything: PageSnapshot[] | null): void {
  const actor = RECONCILE_ACTOR;
  if (changes.length === 1) {
    const c = changes[0]!;
    const type = c.action === "page_created" ? "page-created" : c.action === "page_deleted" ? "page-deleted" : c.action === "page_moved" ? "page-moved" : "page-updated";
    const fields = c.oldPath !== undefined ? { old_path: c.oldPath, new_path: c.path } : { path: c.path };
    bus.publish({ type, workspace_id: workspaceId, payload: { workspace_id: workspaceId, ...fields, actor } });
  } else if (changes.length > 1) {
    const paths = [...new Set(changes.flatMap((c) => (c.oldPath !== undefined ? [c.oldPath, c.path] : [c.path])))].sort();
    bus.publish({ type: "bulk-sync", workspace_id: workspaceId, payload: { workspace_id: workspaceId, changed_count: changes.length, paths, actor } });
  }
  if (everything !== null) {
    bus.publishChange({ kind: "reset", workspace_id: workspaceId, pages: everything });
    return;
  }
  for (const c of changes) {
    if (c.snapshot) bus.publishChange({ kind: "upsert", workspace_id: workspaceId, page: c.snapshot });
    else bus.publishChange({ kind: "remove", workspace_id: workspaceId, page_id: c.pageId });
  }
}

/** What the pass's listeners (git) are told: the changes, and each touched file's text as the pass left it. */
export function reconciledPass(workspaceId: string, source: ReconcileSource, changes: PageChange[], scanned: ScannedFile[], injected: Array<{ path: string; text: string }>): ReconciledPass {
  const textOf = new Map(scanned.map((s) => [s.path, s.file.text]));
  // Removals first: a path a page left and another page now holds keeps the file that is there.
  const files = new Map<string, string | null>();
  for (const c of changes) {
    if (c.action === "page_deleted") files.set(c.path, null);
    if (c.oldPath !== undefined) files.set(c.oldPath, null);
  }
  for (const c of changes) if (c.action !== "page_deleted") files.set(c.path, textOf.get(c.path) ?? null);
  for (const f of injected) files.set(f.path, f.text);
  return {
    workspace_id: workspaceId,
    source,
    changes: changes.map((c) => ({ action: c.action, path: c.path, ...(c.oldPath !== undefined ? { old_path: c.oldPath } : {}) })),
    files: [...files].map(([path, data]) => ({ path, data })),
  };
}
