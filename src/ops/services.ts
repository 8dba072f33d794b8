import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Closers } from "../core/closers.ts";
import { ulid } from "../core/ids.ts";
import type { Sessions } from "../identity/sessions.ts";
import { Maintenance } from "./maintenance.ts";
import { Metrics } from "./metrics.ts";
import { BackupScheduler } from "./backup.ts";

/** The instance's own upkeep: its id, the hourly purge, the daily backup, the metrics. */
export interface OpsServices {
  instanceId: string;
  /** Hourly purge of expired sessions, reset links, invitations and old mail. */
  maintenance: Maintenance;
  /** Prometheus counters and gauges (/metrics); fed by the HTTP core, search and git sync. */
  metrics: Metrics;
  /** The daily backup (BACKUP_ENABLED); null when off. */
  backups: BackupScheduler | null;
}

/** Builds and starts the instance's workers (maintenance, backups) and registers their closers. */
export function buildOpsServices(deps: { db: Db; config: Config; dataDir: string; log: Logger; closers: Closers; sessions: Sessions }): OpsServices {
  const { db, config, log, closers } = deps;
  const maintenance = new Maintenance({ db, sessions: deps.sessions, log });
  maintenance.start();
  closers.push(() => maintenance.stop());
  const backups = config.backup.enabled ? new BackupScheduler({ dataDir: deps.dataDir, retentionDays: config.backup.retentionDays, log }) : null;
  if (backups) {
    backups.start();
    closers.push(() => backups.stop());
  }
  return { instanceId: instanceIdOf(db), maintenance, metrics: new Metrics(), backups };
}

/** The instance's id, created on first start and kept in the database. */
function instanceIdOf(db: Db): string {
  const row = db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'instance_id'").get();
  if (row) return row.value;
  const id = ulid();
  db.query("INSERT INTO instance (key, value) VALUES ('instance_id', ?)").run(id);
  return id;
}
