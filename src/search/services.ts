import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Closers } from "../core/closers.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { Permissions } from "../access/permissions.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import { SearchService } from "./search-service.ts";

/** Full-text search, following the ledger's changes from the start; closed with the process. */
export function buildSearch(deps: { db: Db; dataDir: string; log: Logger; closers: Closers; bus: EventBus; permissions: Permissions; restrictions: Restrictions; workspaces: WorkspaceRecords }): SearchService {
  const { db, dataDir, bus, permissions, restrictions, workspaces, log } = deps;
  const search = new SearchService({ db, dataDir, bus, permissions, restrictions, workspaces, log });
  search.start();
  deps.closers.push(() => search.stop());
  return search;
}
