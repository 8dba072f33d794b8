import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Closers } from "../core/closers.ts";
import type { ContentLedger } from "../content/ledger.ts";
import type { GitSync } from "../git/sync-service.ts";
import type { WorkspaceHook } from "../access/workspace-service.ts";
import { HistoryService } from "./history-service.ts";
import { VersionIndex } from "./version-index.ts";

export interface HistoryServices {
  history: HistoryService;
  versionIndex: VersionIndex;
}

/**
 * Page history's services: the version index follows every commit the git engine makes or pulls
 * (its `committedHooks`), catches up with HEAD for each workspace at start (a backfill when it was
 * never indexed, e.g. after `rebuild`) and after a workspace is created (a clone, `init
 * --git-url`); the index stops with the other closers.
 */
export function buildHistoryServices(deps: {
  db: Db;
  log: Logger;
  closers: Closers;
  ledger: ContentLedger;
  gitSync: GitSync;
  createdHooks: WorkspaceHook[];
}): HistoryServices {
  const { db, log, ledger, gitSync } = deps;
  const versionIndex = new VersionIndex({ db, log, workTree: (id) => ledger.dir(id).root });
  gitSync.committedHooks.push((workspaceId, commit) => versionIndex.committed(workspaceId, commit));
  // After git's own hook (registered first) has cloned or initialised the repository.
  deps.createdHooks.push((ws) => {
    void versionIndex.catchUp(ws.id);
  });
  for (const { id } of db.query<{ id: string }, []>("SELECT id FROM workspaces WHERE deleted_at IS NULL").all()) void versionIndex.catchUp(id);
  deps.closers.push(() => versionIndex.stop());
  return { history: new HistoryService({ db, ledger, index: versionIndex }), versionIndex };
}
