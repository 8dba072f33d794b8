import type { Db } from "../db/database.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { ContentLedger } from "./ledger.ts";
import type { FileWatcher } from "./file-watcher.ts";

type Hook = (workspace: WorkspaceRow, actorUserId: string) => Promise<void> | void;

/**
 * The content ledger's part in a workspace's life, as hooks for the workspace service (and the
 * starter workspace of registration):
 * - created: the folder `{DATA_DIR}/workspaces/{id}/` exists at once, so the first page can be
 *   written right away, and it is watched for changes made outside Quire. (Git replaces or extends
 *   this with a clone or `git init`; when it replaces the folder it should call `watcher.rewatch`.)
 * - deleted (soft): the watch stops; the files stay in place so the workspace can be recovered.
 */
function workspaceFolderHooks(ledger: ContentLedger, watcher: FileWatcher | null): { created: Hook; deleted: Hook } {
  return {
    created: (workspace) => {
      ledger.dir(workspace.id).ensure();
      watcher?.watch(workspace.id);
    },
    deleted: (workspace) => {
      watcher?.unwatch(workspace.id);
    },
  };
}

/** Attaches the hooks to every place a workspace is born or removed. */
export function attachWorkspaceFolders(
  targets: { createdHooks: Hook[]; deletedHooks: Hook[]; starterHooks: Hook[] },
  ledger: ContentLedger,
  watcher: FileWatcher | null,
): void {
  const hooks = workspaceFolderHooks(ledger, watcher);
  // First among the created hooks: anything after it (a git clone or init, the starter pages)
  // finds the folder there. Git itself never creates a workspace folder.
  targets.createdHooks.unshift(hooks.created);
  targets.starterHooks.unshift(hooks.created);
  targets.deletedHooks.push(hooks.deleted);
}

/** Ids of the workspaces that are not deleted (the ones to watch at start). */
export function liveWorkspaceIds(db: Db): string[] {
  return db.query<{ id: string }, []>("SELECT id FROM workspaces WHERE deleted_at IS NULL ORDER BY id").all().map((r) => r.id);
}
