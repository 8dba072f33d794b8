import type { StorageHealth } from "../core/storage-errors.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Closers } from "../core/closers.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { ContentLedger } from "../content/ledger.ts";
import type { Reconciler } from "../content/reconcile.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { Users } from "../identity/users.ts";
import type { Permissions } from "../access/permissions.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import { GitSync } from "./sync-service.ts";
import { ConflictService } from "./conflict-service.ts";
import { WebhookReceiver } from "./webhook-receiver.ts";

/** Git sync (commits, pushes, pulls, polling), its conflicts, and the inbound push webhooks. */
export interface GitServices {
  /** Git sync: commits, pushes, pulls, polling (docs/architecture.md §6). */
  gitSync: GitSync;
  /** Sync conflicts and the manual sync, for the routes. */
  conflictService: ConflictService;
  /** Inbound git push webhooks; the sync engine subscribes with `webhooks.onPush`. */
  webhooks: WebhookReceiver;
}

/**
 * Builds git sync and registers its closer; the caller starts it (`gitSync.start()`) once the
 * workspace hooks are attached. A push webhook triggers a sync of its workspace.
 */
export function buildGitServices(deps: {
  db: Db;
  config: Config;
  dataDir: string;
  log: Logger;
  closers: Closers;
  bus: EventBus;
  ledger: ContentLedger;
  reconciler: Reconciler;
  workspaces: WorkspaceRecords;
  users: Users;
  permissions: Permissions;
  restrictions: Restrictions;
  storage?: StorageHealth;
}): GitServices {
  const { db, config, dataDir, log, bus, ledger, reconciler, workspaces, users, storage } = deps;
  const gitSync = new GitSync({ db, config, dataDir, log, ledger, reconciler, bus, workspaces, users, storage });
  deps.closers.push(() => gitSync.stop());
  const conflictService = new ConflictService({ db, permissions: deps.permissions, users, ledger, bus, gitSync, restrictions: deps.restrictions });
  const webhooks = new WebhookReceiver({ workspaces, log });
  webhooks.onPush((push) => gitSync.trigger(push.workspaceId, { reason: "webhook", branch: push.branch }).catch(() => {}));
  return { gitSync, conflictService, webhooks };
}
