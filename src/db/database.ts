import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrations as builtIn, type Migration } from "./migrations/index.ts";
import { NewerSchemaError } from "./newer-schema-error.ts";

export type Db = Database;

/** Opens (creating when absent) a SQLite file in WAL mode with foreign keys and a busy timeout. */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

/**
 * Opens an existing SQLite file read-only (never created, never migrated): for the commands and
 * checks that only read, beside a running server or alone. A database busy with a write is waited
 * for up to `busyTimeoutMs`.
 */
export function openReadOnly(path: string, opts: { busyTimeoutMs?: number } = {}): Db {
  const db = new Database(path, { readonly: true, strict: true });
  db.exec(`PRAGMA busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  return db;
}

/** A migration that could not be applied; its own changes were rolled back and no later one ran. */
export class MigrationError extends Error {
  constructor(
    readonly version: number,
    readonly migrationName: string,
    cause: unknown,
  ) {
    super(
      `Database migration ${version} (${migrationName}) failed and was rolled back: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = "MigrationError";
  }
}

/**
 * Applies pending migrations in order, each in its own transaction; returns the versions applied.
 * The first failure stops the run with a MigrationError: a schema half-way between versions must
 * never serve requests. A database with a migration newer than all of `migrations` is refused with
 * a NewerSchemaError before anything is applied.
 */
export function migrate(db: Db, migrations: Migration[] = builtIn): number[] {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const done = new Set(
    db.query<{ version: number }, []>("SELECT version FROM schema_migrations").all().map((r) => r.version),
  );
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...done);
  if (newest > known) throw new NewerSchemaError(newest, known);
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(m.version)) continue;
    try {
      db.transaction(() => {
        db.exec(m.sql);
        db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
          m.version,
          m.name,
          new Date().toISOString(),
        );
      })();
    } catch (error) {
      throw new MigrationError(m.version, m.name, error);
    }
    applied.push(m.version);
  }
  return applied;
}
