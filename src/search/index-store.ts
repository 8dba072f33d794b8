import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";

/**
 * Bumped whenever the table layout, tokenizer or indexed text changes: a file of another format
 * is deleted and every index is rebuilt from the ledger.
 */
const INDEX_FORMAT = 3;

/**
 * `{DATA_DIR}/search/index.db`: one SQLite file (WAL) holding every workspace's FTS5 index.
 * Kept out of quire.db so `search/` stays what docs/architecture.md §4 says it is, derived data that can be
 * deleted at any time and is rebuilt from the files, and so index writes never queue behind
 * (or bloat the backups of) the ledger's database.
 */
export class IndexStore {
  readonly dir: string;
  readonly file: string;
  private handle: Db | null = null;

  constructor(
    dataDir: string,
    private readonly log: Logger,
  ) {
    this.dir = join(dataDir, "search");
    this.file = join(this.dir, "index.db");
  }

  /** The open database, opened (and, when unreadable or of another format, recreated) on first use. */
  get db(): Db {
    return (this.handle ??= this.open());
  }

  /** Whether a workspace's index is in the file (a complete build or a kept-up index). */
  has(workspaceId: string): boolean {
    return this.db.query<{ one: number }, [string]>("SELECT 1 AS one FROM indexed WHERE workspace_id = ?").get(workspaceId) !== null;
  }

  /** Throws the file away and starts empty: used when SQLite reports it corrupt. */
  recreate(): void {
    this.close();
    this.removeFiles();
    this.handle = this.open();
  }

  /** Hands SQLite's page cache back (an idle server; the next query reads what it needs again). Not opened for it. */
  releaseMemory(): void {
    this.handle?.exec("PRAGMA shrink_memory");
  }

  close(): void {
    try {
      this.handle?.close();
    } catch {
      // Closing a corrupt or already closed handle: nothing left to save.
    }
    this.handle = null;
  }

  private open(): Db {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.removeOldFormatFiles();
    try {
      return this.prepare(openDatabase(this.file));
    } catch (error) {
      this.log.warn("search index file unusable; starting a new one", { error: String(error) });
      this.removeFiles();
      return this.prepare(openDatabase(this.file));
    }
  }

  private prepare(db: Db): Db {
    try {
      // SQLite's page cache counts in the server's RSS while the OS caches the file anyway; 1 MiB
      // (instead of 2) measured no slower at 10,000 pages and keeps idle memory down.
      db.exec("PRAGMA cache_size = -1024");
      db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      const format = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'format'").get()?.value;
      if (format !== undefined && format !== String(INDEX_FORMAT)) throw new Error(`index format ${format}, expected ${INDEX_FORMAT}`);
      db.exec("CREATE TABLE IF NOT EXISTS indexed (workspace_id TEXT PRIMARY KEY, built_at TEXT NOT NULL)");
      db.query("INSERT OR IGNORE INTO meta (key, value) VALUES ('format', ?)").run(String(INDEX_FORMAT));
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  private removeFiles(): void {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(this.file + suffix, { force: true });
  }

  /** The JSON files of the earlier in-memory index: derived data, so they just go. */
  private removeOldFormatFiles(): void {
    if (!existsSync(this.dir)) return;
    for (const name of readdirSync(this.dir)) {
      if (/^\.?[0-9A-Z]{26}(\.[A-Za-z0-9_-]+)?\.(json|tmp)$/.test(name)) rmSync(join(this.dir, name), { force: true });
    }
  }
}
