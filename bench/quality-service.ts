import { join } from "node:path";

/**
 * The quality scan over a data directory, built from the real services the way the server builds
 * them (imported on call, so a benchmark's own start-up does not pay for them). Close `db` after.
 */
export async function openQualityService(dataDir: string) {
  const { openDatabase } = await import("../src/db/database.ts");
  const { EventBus } = await import("../src/core/event-bus.ts");
  const { ContentLedger } = await import("../src/content/ledger.ts");
  const { silentLogger } = await import("../src/core/log.ts");
  const { WorkspaceRecords } = await import("../src/workspaces/workspace-records.ts");
  const { Permissions } = await import("../src/access/permissions.ts");
  const { QualityService } = await import("../src/publish/quality/quality-service.ts");
  const { Restrictions } = await import("../src/access/restrictions/restrictions-service.ts");
  const { Users } = await import("../src/identity/users.ts");
  const db = openDatabase(join(dataDir, "quire.db"));
  const ledger = new ContentLedger({ db, dataDir, bus: new EventBus(), log: silentLogger });
  const permissions = new Permissions(db, new WorkspaceRecords(db));
  const restrictions = new Restrictions({ db, permissions, users: new Users(db) });
  return { db, quality: new QualityService({ permissions, restrictions, ledger }) };
}
