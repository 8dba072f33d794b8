import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Closers } from "../core/closers.ts";
import type { EventBus } from "../core/event-bus.ts";
import { ContentLedger } from "./ledger.ts";
import { Reconciler } from "./reconcile.ts";
import { Uploads } from "./uploads.ts";
import { FileWatcher } from "./file-watcher.ts";
import { AgentPages } from "./agent-pages.ts";
import { PageRecords } from "./page-records.ts";

/** Pages and their files: the ledger, the reconcile of changes made outside Quire, uploads, the file watch. */
export interface ContentServices {
  ledger: ContentLedger;
  reconciler: Reconciler;
  uploads: Uploads;
  /** Reconciles changes made outside Quire; null when QUIRE_WATCH_FILES=false. */
  watcher: FileWatcher | null;
  /** Page operations shaped for agents (MCP tools): slices, upsert, find/replace edits, context. */
  agentPages: AgentPages;
  /** The page records (the instance's page count for the gauges). */
  pages: PageRecords;
}

/** Builds the content services and registers their closers; the watcher is created but watches nothing yet. */
export function buildContentServices(deps: { db: Db; config: Config; dataDir: string; bus: EventBus; log: Logger; closers: Closers }): ContentServices {
  const { db, dataDir, bus, log, closers } = deps;
  const ledger = new ContentLedger({ db, dataDir, bus, log });
  closers.push(() => ledger.close());
  const reconciler = new Reconciler({ db, ledger, bus, log });
  closers.push(() => reconciler.stop());
  const watcher = deps.config.watchFiles ? new FileWatcher({ ledger, reconciler, log }) : null;
  if (watcher) closers.push(() => watcher.close());
  return { ledger, reconciler, uploads: new Uploads(ledger), watcher, agentPages: new AgentPages(ledger), pages: new PageRecords(db) };
}
