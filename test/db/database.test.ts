import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { migrate, MigrationError, openDatabase, type Db } from "../../src/db/database.ts";
import { NewerSchemaError } from "../../src/db/newer-schema-error.ts";
import { migrations, SCHEMA_VERSION } from "../../src/db/migrations/index.ts";
import { startTestServer, tempDir } from "../helpers/server.ts";

const dirs: string[] = [];
const open: Db[] = [];
afterAll(() => {
  for (const db of open) db.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dbFile(): string {
  const d = tempDir("quire-db-");
  dirs.push(d);
  return join(d, "nested", "quire.db");
}
function opened(path: string): Db {
  const db = openDatabase(path);
  open.push(db);
  return db;
}
const pragma = (db: Database, name: string) => Object.values(db.query(`PRAGMA ${name}`).get() as object)[0];
const versions = (db: Database) =>
  db.query<{ version: number; name: string }, []>("SELECT version, name FROM schema_migrations ORDER BY version").all();
const tables = (db: Database) =>
  db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((r) => r.name);

test("a database opens in WAL mode with foreign keys enforced and a 5 s busy timeout, its folder created", () => {
  const path = dbFile();
  const db = opened(path);
  expect(pragma(db, "journal_mode")).toBe("wal");
  expect(pragma(db, "foreign_keys")).toBe(1);
  expect(pragma(db, "busy_timeout")).toBe(5000);
  expect(pragma(db, "synchronous")).toBe(1); // NORMAL
  migrate(db);
  // The mode is persistent in the file: another connection sees WAL too.
  const other = new Database(path, { readonly: true });
  expect(pragma(other, "journal_mode")).toBe("wal");
  other.close();
  // Foreign keys are enforced, not just declared.
  expect(() =>
    db.query("INSERT INTO org_members (org_id, user_id, role, joined_at) VALUES ('no-such-org', 'no-such-user', 'member', 'now')").run(),
  ).toThrow(/FOREIGN KEY/);
});

test("a writer waits for another connection's write lock instead of failing at once", async () => {
  const path = dbFile();
  const db = opened(path);
  migrate(db);
  // Another process holds the write lock for 300 ms.
  const holder = Bun.spawn(
    [process.execPath, "-e", `
      const { Database } = require("bun:sqlite");
      const db = new Database(${JSON.stringify(path)});
      db.exec("BEGIN IMMEDIATE");
      db.exec("INSERT INTO instance (key, value) VALUES ('holder', 'x')");
      console.log("locked");
      Bun.sleepSync(300);
      db.exec("COMMIT");
    `],
    { stdout: "pipe", stderr: "inherit" },
  );
  const reader = holder.stdout.getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toContain("locked");
  const started = Date.now();
  db.query("INSERT INTO instance (key, value) VALUES ('waiter', 'y')").run();
  expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  expect(await holder.exited).toBe(0);
  expect(db.query("SELECT key FROM instance WHERE key IN ('holder', 'waiter') ORDER BY key").all()).toEqual([{ key: "holder" }, { key: "waiter" }]);
});

test("the built-in migrations apply in order exactly once; a restart applies none again", () => {
  const path = dbFile();
  const db = opened(path);
  const all = migrations.map((m) => m.version);
  expect(all).toEqual([...all].sort((a, b) => a - b));
  expect(migrate(db)).toEqual(all);
  expect(versions(db)).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })));
  const schema = tables(db);
  db.close();
  open.splice(open.indexOf(db), 1);

  const again = opened(path);
  expect(migrate(again)).toEqual([]);
  expect(migrate(again)).toEqual([]);
  expect(versions(again)).toHaveLength(migrations.length);
  expect(tables(again)).toEqual(schema);
});

test("pending migrations run in version order whatever order they are listed in, each recorded once", () => {
  const db = opened(dbFile());
  const list = [
    { version: 3, name: "third", sql: "INSERT INTO log (entry) VALUES ('3')" },
    { version: 1, name: "first", sql: "CREATE TABLE log (entry TEXT NOT NULL)" },
    { version: 2, name: "second", sql: "INSERT INTO log (entry) VALUES ('2')" },
  ];
  expect(migrate(db, list.slice(1))).toEqual([1, 2]);
  expect(migrate(db, list)).toEqual([3]);
  expect(migrate(db, list)).toEqual([]);
  expect(db.query("SELECT entry FROM log").all()).toEqual([{ entry: "2" }, { entry: "3" }]);
  expect(versions(db)).toEqual([
    { version: 1, name: "first" },
    { version: 2, name: "second" },
    { version: 3, name: "third" },
  ]);
});

test("a failing migration is rolled back whole, stops the run with an error naming it, and no later one runs", () => {
  const db = opened(dbFile());
  const list = [
    { version: 1, name: "base", sql: "CREATE TABLE a (id INTEGER PRIMARY KEY)" },
    // Its first statement succeeds and must be undone with the failing second one.
    { version: 2, name: "broken", sql: "CREATE TABLE b (id INTEGER PRIMARY KEY); INSERT INTO missing_table VALUES (1);" },
    { version: 3, name: "later", sql: "CREATE TABLE c (id INTEGER PRIMARY KEY)" },
  ];
  let error: unknown;
  try {
    migrate(db, list);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(MigrationError);
  expect((error as MigrationError).version).toBe(2);
  expect((error as Error).message).toBe("Database migration 2 (broken) failed and was rolled back: no such table: missing_table");
  expect(versions(db)).toEqual([{ version: 1, name: "base" }]);
  expect(tables(db)).toEqual(["a", "schema_migrations"]);

  // Fixed, the next start applies it and the ones after.
  list[1]!.sql = "CREATE TABLE b (id INTEGER PRIMARY KEY)";
  expect(migrate(db, list)).toEqual([2, 3]);
});

test("the server does not start on a database whose migration fails, and says which one", async () => {
  const dir = tempDir("quire-db-");
  dirs.push(dir);
  // A foreign table in the way of the first migration.
  const foreign = new Database(join(dir, "quire.db"), { create: true });
  foreign.exec("CREATE TABLE users (something TEXT)");
  foreign.close();

  let error: unknown;
  try {
    const s = await startTestServer({}, { dataDir: dir, keepDir: true });
    await s.close();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(MigrationError);
  expect((error as Error).message).toBe("Database migration 1 (identity-access) failed and was rolled back: table users already exists");
  const db = new Database(join(dir, "quire.db"), { readonly: true });
  expect(db.query("SELECT COUNT(*) AS n FROM schema_migrations").get()).toEqual({ n: 0 });
  // Nothing of the migration's other tables stayed behind.
  expect(tables(db)).toEqual(["schema_migrations", "users"]);
  db.close();
});

test("a database a newer Quire migrated further is refused before anything is applied (migrations only go forward)", () => {
  const db = opened(dbFile());
  migrate(db);
  db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from-the-future', '2030-01-01T00:00:00Z')").run(SCHEMA_VERSION + 1);
  const before = tables(db);
  let error: unknown;
  try {
    migrate(db);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(NewerSchemaError);
  expect((error as Error).message).toContain(`database schema ${SCHEMA_VERSION + 1}; this version knows up to ${SCHEMA_VERSION}`);
  expect((error as Error).message).toContain("migrations only go forward");
  expect(tables(db)).toEqual(before);
  expect(SCHEMA_VERSION).toBe(Math.max(...migrations.map((m) => m.version)));
});
