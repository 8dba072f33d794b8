/**
 * Backups on a disk that fills up, for real: the data directory is a small tmpfs. A backup whose
 * VACUUM INTO runs out of space leaves no temporary file and no half set (the quire copy made
 * before the analytics one failed is removed too); the schedule still applies the retention, says
 * "disk is full" at warn (not an error), and once space is freed the next backup is whole.
 * Skipped with a message where mounting is refused (not root).
 */
import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statfsSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/core/log.ts";
import { storageFailureOf } from "../../src/core/storage-errors.ts";
import { openDatabase } from "../../src/db/database.ts";
import { backupNow, backupStamp, BackupScheduler, listBackups } from "../../src/ops/backup.ts";

const MOUNT = mkdtempSync(join(tmpdir(), "quire-tmpfs-backup-"));
const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=12m", "tmpfs", MOUNT]).status === 0;
if (!mounted) console.warn(`test/ops/backup-full-disk.test.ts: skipped, mounting a tmpfs on ${MOUNT} was refused (needs root)`);
afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", MOUNT]);
  rmSync(MOUNT, { recursive: true, force: true });
});

const DAY = 24 * 3600_000;
const free = () => {
  const s = statfsSync(MOUNT);
  return s.bavail * s.bsize;
};
/** Random bytes do not compress or shrink under VACUUM: the copy is as large as the data. */
function fill(path: string, kb: number): void {
  const db = openDatabase(path);
  db.exec("CREATE TABLE IF NOT EXISTS t (v BLOB)");
  const insert = db.query("INSERT INTO t VALUES (?)");
  for (let i = 0; i < kb / 16; i++) insert.run(crypto.getRandomValues(new Uint8Array(16 * 1024)));
  db.close();
}
const backupFiles = (d: string) => readdirSync(join(d, "backups")).sort();

test.skipIf(!mounted)("a backup that runs out of space removes what it made, the retention still runs, and the next one is whole", async () => {
  const d = join(MOUNT, "data");
  openDatabase(join(d, "quire.db")).close();
  openDatabase(join(d, "analytics.db")).close();
  const now = Date.now();
  // Old sets, made while the databases were small: two past a 7-day retention, one 2 days old.
  for (const age of [10, 8, 2]) backupNow(d, now - age * DAY);
  // A temporary copy a killed backup process left behind two days ago.
  const stale = join(d, "backups", `quire-${backupStamp(now - 3 * DAY)}.db.99999.tmp`);
  writeFileSync(stale, Buffer.alloc(64 * 1024, 1));
  utimesSync(stale, new Date(now - 2 * DAY), new Date(now - 2 * DAY));
  fill(join(d, "quire.db"), 512);
  fill(join(d, "analytics.db"), 2048);
  // About 1.2 MB left: the quire copy (0.5 MB) fits, the analytics one (2 MB) does not.
  const ballast = join(MOUNT, "ballast.bin");
  writeFileSync(ballast, Buffer.alloc(Math.max(0, free() - 1200 * 1024), 1));
  const before = backupFiles(d);

  let thrown: unknown = null;
  try {
    backupNow(d, now);
  } catch (e) {
    thrown = e;
  }
  expect(storageFailureOf(thrown)).toBe("full");
  // Nothing of the failed set stays: no temporary file, no quire copy without its analytics one.
  expect(backupFiles(d)).toEqual(before);

  // The schedule: expired sets pruned (never the newest), the stale temporary file too, the
  // failure said as a full disk at warn.
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({ write: (l) => lines.push(JSON.parse(l)) });
  const schedule = new BackupScheduler({ dataDir: d, retentionDays: 7, log, backup: backupNow });
  expect(await schedule.runIfDue(now)).toBeNull();
  const stamp2 = backupStamp(now - 2 * DAY);
  expect(backupFiles(d)).toEqual([`analytics-${stamp2}.db`, `quire-${stamp2}.db`]);
  const refused = lines.find((l) => l.msg === "backup refused: the disk is full");
  expect(refused?.level).toBe("warn");
  expect(lines.filter((l) => l.level === "error")).toEqual([]);

  // Space is back: the next backup is a whole set, and the old one goes at the next retention.
  rmSync(ballast);
  const made = await schedule.runIfDue(now);
  expect(made?.files.map((f) => f.database)).toEqual(["quire", "analytics"]);
  expect(listBackups(d).filter((b) => b.at === now - (now % 1000))).toHaveLength(2);
  expect(backupFiles(d).some((n) => n.endsWith(".tmp"))).toBe(false);
}, 60_000);
