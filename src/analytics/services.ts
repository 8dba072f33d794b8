import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../core/log.ts";
import type { StorageHealth } from "../core/storage-errors.ts";
import type { Closers } from "../core/closers.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { Plans } from "../billing/plans.ts";
import type { SiteView } from "../publish/site-server.ts";
import { openAnalyticsDb } from "./database.ts";
import { Analytics } from "./analytics.ts";
import { consentOf, isAutomated } from "./input.ts";

/**
 * Opens analytics.db and starts the analytics worker (flush, daily purge); both close with the
 * process. Built on first use (src/services.ts): a page view, a search, a report.
 */
export function buildAnalytics(deps: {
  config: Config;
  dataDir: string;
  log: Logger;
  closers: Closers;
  workspaces: WorkspaceRecords;
  permissions: Permissions;
  plans: () => Plans;
  storage?: StorageHealth;
}): Analytics {
  const db = openAnalyticsDb(join(deps.dataDir, "analytics.db"));
  deps.closers.push(() => db.close());
  const analytics = new Analytics({ db, workspaces: deps.workspaces, permissions: deps.permissions, plans: deps.plans(), log: deps.log, baseUrl: deps.config.baseUrl, storage: deps.storage });
  analytics.start();
  deps.closers.push(() => analytics.stop());
  return analytics;
}

/**
 * A published page's view, as analytics records it: never a crawler's; a visitor is counted (a
 * salted, daily hash) only with the consent cookie and no opt-out signal.
 */
export function recordSiteView(analytics: Analytics, v: SiteView): void {
  const userAgent = v.headers.get("user-agent");
  if (isAutomated(userAgent)) return;
  const consent = v.cookieless ? false : consentOf(v.headers);
  // One object literal either way (a spread of an empty one costs a copy on every view).
  analytics.recordPageView(
    consent && v.ip
      ? { workspaceId: v.workspaceId, path: v.path, referrer: v.headers.get("referer"), consent, client: { ip: v.ip, userAgent: userAgent ?? "" } }
      : { workspaceId: v.workspaceId, path: v.path, referrer: v.headers.get("referer"), consent },
  );
}
