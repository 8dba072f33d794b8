/**
 * Online backups (docs/architecture.md §13): consistent copies of quire.db and, when present, analytics.db
 * into `{DATA_DIR}/backups/`, made with SQLite's `VACUUM INTO` from a separate read-only
 * connection — never a file copy of a live database. VACUUM INTO reads inside one read
 * transaction, so the copy is the database as of one instant even while a server keeps writing
 * (WAL: the reader blocks no writer, the writers change nothing the reader sees). The copy is
 * written under a temporary name and renamed, so `backups/` never holds half a backup; a backup
 * that fails part-way (the disk filled during VACUUM INTO) removes its temporary file and the
 * copies of the same set already made, so what is left is whole sets only, and the retention
 * still runs (docs/decisions/storage.md §6).
 *
 * Names: `quire-YYYYMMDDTHHMMSSZ.db`, `analytics-YYYYMMDDTHHMMSSZ.db` (UTC). The work trees are
 * not copied: every page is already a file under git (`workspaces/`), which the restore uses.
 * Secrets (jwt-private.pem, api-key-pepper, control.token) are never copied into backups/.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../core/log.ts";
import { assetsAreEmbedded } from "../core/assets.ts";
import { storageFailureOf } from "../core/storage-errors.ts";
import { openReadOnly } from "../db/database.ts";

const BACKUP_DIR = "backups";
const BACKED_UP = ["quire", "analytics"] as const;
const NAME = /^(quire|analytics)-(\d{8}T\d{6}Z)\.db$/;
const TEMP = /^(quire|analytics)-\d{8}T\d{6}Z\.db\.\d+\.tmp$/;
const DAY_MS = 24 * 3600_000;

interface BackupFile {
  database: (typeof BACKED_UP)[number];
  path: string;
  bytes: number;
}

interface BackupResult {
  stamp: string;
  files: BackupFile[];
  ms: number;
}

/** 2026-11-25T21:39:40.123Z → 20261125T213940Z */
export function backupStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

function stampMs(stamp: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(stamp)!;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}

export class NoDatabaseError extends Error {
  constructor(dataDir: string) {
    super(`there is no database to back up in ${dataDir} (quire.db is missing)`);
    this.name = "NoDatabaseError";
  }
}

/** Makes one backup now. Safe beside a running server and alone. */
export function backupNow(dataDir: string, nowMs: number = Date.now()): BackupResult {
  const started = performance.now();
  if (!existsSync(join(dataDir, "quire.db"))) throw new NoDatabaseError(dataDir);
  const dir = join(dataDir, BACKUP_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Two backups in the same second (a manual one beside the schedule) get distinct names.
  let ms = nowMs;
  while (existsSync(join(dir, `quire-${backupStamp(ms)}.db`))) ms += 1000;
  const stamp = backupStamp(ms);
  const files: BackupFile[] = [];
  for (const database of BACKED_UP) {
    const source = join(dataDir, `${database}.db`);
    if (!existsSync(source)) continue;
    const target = join(dir, `${database}-${stamp}.db`);
    const tmp = `${target}.${process.pid}.tmp`;
    rmSync(tmp, { force: true });
    try {
      const db = openReadOnly(source);
      try {
        db.query("VACUUM INTO ?").run(tmp);
      } finally {
        db.close();
      }
      renameSync(tmp, target);
    } catch (error) {
      // All or nothing: a set missing its analytics copy would pass for whole, and as the newest
      // it would be the one the retention keeps. Removing the part made also gives back the space.
      rmSync(tmp, { force: true });
      for (const f of files) rmSync(f.path, { force: true });
      throw error;
    }
    files.push({ database, path: target, bytes: statSync(target).size });
  }
  return { stamp, files, ms: performance.now() - started };
}

interface BackupEntry {
  database: string;
  name: string;
  path: string;
  at: number;
}

/** The backups in `backups/`, newest first (temporary and foreign files ignored). */
export function listBackups(dataDir: string): BackupEntry[] {
  const dir = join(dataDir, BACKUP_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => ({ name, m: NAME.exec(name) }))
    .filter((e): e is { name: string; m: RegExpExecArray } => e.m !== null)
    .map(({ name, m }) => ({ database: m[1]!, name, path: join(dir, name), at: stampMs(m[2]!) }))
    .sort((a, b) => b.at - a.at);
}

/**
 * Deletes backups older than `retentionDays`, but never the newest quire backup (an instance
 * that was off for longer than the retention keeps its last copy until a new one exists).
 */
export function pruneBackups(dataDir: string, retentionDays: number, nowMs: number = Date.now()): string[] {
  const all = listBackups(dataDir);
  const newest = all.find((b) => b.database === "quire");
  const removed: string[] = [];
  // A temporary copy left by a backup process that was killed mid-way (its own failure removes
  // it) would hold its space for ever: one older than a day belongs to no backup under way.
  const dir = join(dataDir, BACKUP_DIR);
  if (existsSync(dir)) {
    for (const name of readdirSync(dir)) {
      if (!TEMP.test(name)) continue;
      const path = join(dir, name);
      if ((statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? nowMs) < nowMs - DAY_MS) {
        rmSync(path, { force: true });
        removed.push(name);
      }
    }
  }
  for (const b of all) {
    if (b.at >= nowMs - retentionDays * DAY_MS) continue;
    if (newest && b.at === newest.at) continue;
    rmSync(b.path, { force: true });
    removed.push(b.name);
  }
  return removed;
}

/**
 * `quire backup` in a child process: the copy of a large database takes seconds of synchronous
 * SQLite work, which must not stall the server's requests. The executable runs itself; from
 * source, Bun runs the CLI's entry file.
 */
async function backupInChildProcess(dataDir: string): Promise<BackupResult> {
  const entry = assetsAreEmbedded() ? [process.execPath] : [process.execPath, join(import.meta.dir, "../cli.ts")];
  const proc = Bun.spawn([...entry, "backup", "--json", "--data-dir", dataDir], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, LOG_FORMAT: "json" },
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`quire backup exited with ${code}: ${err.trim().slice(0, 500)}`);
  return JSON.parse(out) as BackupResult;
}

const BACKUP_CHECK_MS = 3600_000;
const BACKUP_FIRST_CHECK_MS = 60_000;

/**
 * The daily schedule inside `serve`: a minute after start and then every hour, a backup is made
 * when the newest one is 24 hours old or more (or there is none), then old ones are pruned. A
 * server that runs an hour a day still gets its daily copy; restarts never make extra ones.
 */
export class BackupScheduler {
  private timers: Array<ReturnType<typeof setTimeout>> = [];
  private running: Promise<BackupResult | null> | null = null;
  constructor(
    private readonly deps: {
      dataDir: string;
      retentionDays: number;
      log: Logger;
      firstCheckMs?: number;
      checkMs?: number;
      /** How a copy is made; a child process by default (backupInChildProcess). */
      backup?: (dataDir: string, nowMs: number) => Promise<BackupResult> | BackupResult;
    },
  ) {}

  start(): void {
    const first = setTimeout(() => void this.runIfDue(), this.deps.firstCheckMs ?? BACKUP_FIRST_CHECK_MS);
    const every = setInterval(() => void this.runIfDue(), this.deps.checkMs ?? BACKUP_CHECK_MS);
    first.unref?.();
    every.unref?.();
    this.timers.push(first, every);
  }

  /** Clears the timers and waits for a backup under way (its child process finishes its copy). */
  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    await this.running;
  }

  /** Runs a backup when one is due; resolves to it, or null when none was due (or it failed: logged). */
  runIfDue(nowMs: number = Date.now()): Promise<BackupResult | null> {
    this.running ??= this.run(nowMs).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(nowMs: number): Promise<BackupResult | null> {
    const newest = listBackups(this.deps.dataDir).find((b) => b.database === "quire");
    if (newest && nowMs - newest.at < DAY_MS) return null;
    // Expired copies go first, so their space is there for the new one; the newest is never
    // removed, so a backup that then fails leaves the last good copy.
    const prunedBefore = this.prune(nowMs);
    try {
      const result = await (this.deps.backup ?? backupInChildProcess)(this.deps.dataDir, nowMs);
      const removed = this.prune(nowMs);
      this.deps.log.info("backup made", {
        files: result.files.map((f) => f.path),
        bytes: result.files.reduce((n, f) => n + f.bytes, 0),
        ms: Math.round(result.ms),
        pruned: prunedBefore + removed,
      });
      return result;
    } catch (error) {
      // A full or read-only disk is an operating condition, said as such (docs/decisions/storage.md).
      const failure = storageFailureOf(error);
      if (failure) this.deps.log.warn(failure === "full" ? "backup refused: the disk is full" : "backup refused: the storage is read-only", { error: String(error), pruned: prunedBefore });
      else this.deps.log.error("backup failed", { error: String(error), pruned: prunedBefore });
      return null;
    }
  }

  /** Applies the retention; how many files went. A failure to prune is logged, never thrown. */
  private prune(nowMs: number): number {
    try {
      return pruneBackups(this.deps.dataDir, this.deps.retentionDays, nowMs).length;
    } catch (error) {
      this.deps.log.warn("pruning backups failed", { error: String(error) });
      return 0;
    }
  }
}
