/**
 * Backups: consistent while another process keeps writing (each copy passes integrity_check and
 * holds whole transactions only), retention, the daily schedule, and the README's restore
 * procedure carried out for real: `quire backup` beside a running `serve`, then a fresh data
 * directory from the backup and the workspaces folder, and a server started on it.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, cpSync, existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir, silentLogger } from "../helpers/server.ts";
import { openDatabase } from "../../src/db/database.ts";
import { backupNow, BackupScheduler, listBackups, pruneBackups } from "../../src/ops/backup.ts";
import { registerUser } from "../helpers/factories.ts";
import { Client } from "../helpers/client.ts";
import { runCli, startServe, type ServeProcess } from "../cli/spawn.ts";

const dirs: string[] = [];
const procs: Array<{ kill(s?: number | NodeJS.Signals): void; exitCode: number | null }> = [];
function dir(): string {
  const d = tempDir("quire-backup-");
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null) p.kill("SIGKILL");
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("backups taken while another process keeps writing are whole: integrity ok, only complete transactions", async () => {
  const d = dir();
  for (const name of ["quire.db", "analytics.db"]) {
    const db = openDatabase(join(d, name));
    db.exec("CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER)");
    db.close();
  }
  // Each transaction adds one row to a and one to b: a copy of any instant has as many of each.
  const writer = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const { openDatabase } = await import(${JSON.stringify(join(import.meta.dir, "../../src/db/database.ts"))});
       const db = openDatabase(${JSON.stringify(join(d, "quire.db"))});
       const add = db.transaction((i) => { const r = db.query("INSERT INTO a (v) VALUES (?)").run("x".repeat(200) + i); db.query("INSERT INTO b (a_id) VALUES (?)").run(r.lastInsertRowid); });
       console.log("writing");
       for (let i = 0; ; i++) { add(i); if (i % 50 === 0) await Bun.sleep(0); }`,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  procs.push(writer);
  await writer.stdout.getReader().read();
  let last = -1;
  for (let i = 0; i < 5; i++) {
    await Bun.sleep(60);
    const result = backupNow(d, Date.now() + i * 1000);
    expect(result.files.map((f) => f.database)).toEqual(["quire", "analytics"]);
    const copy = new Database(result.files[0]!.path, { readonly: true });
    expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    const { a, b } = copy.query<{ a: number; b: number }, []>("SELECT (SELECT COUNT(*) FROM a) AS a, (SELECT COUNT(*) FROM b) AS b").get()!;
    copy.close();
    expect(a).toBe(b);
    expect(a).toBeGreaterThan(last);
    last = a;
  }
  expect(writer.exitCode).toBeNull(); // it was writing the whole time
  expect(readdirSync(join(d, "backups")).filter((n) => n.endsWith(".tmp"))).toEqual([]);
}, 60_000);

test("retention prunes copies older than the window but never the newest; the schedule makes one a day", async () => {
  const d = dir();
  openDatabase(join(d, "quire.db")).close();
  const day = 24 * 3600_000;
  const now = Date.UTC(2026, 10, 25, 12);
  for (const age of [10, 8, 6, 1]) backupNow(d, now - age * day);
  expect(pruneBackups(d, 7, now)).toEqual(["quire-20261117T120000Z.db", "quire-20261115T120000Z.db"]);
  expect(listBackups(d).map((b) => b.name)).toEqual(["quire-20261124T120000Z.db", "quire-20261119T120000Z.db"]);
  // Off for longer than the retention: the last copy stays until a new one exists.
  expect(pruneBackups(d, 7, now + 30 * day)).toEqual(["quire-20261119T120000Z.db"]);
  expect(listBackups(d)).toHaveLength(1);

  // The schedule's decisions, with the copy made in this process (the clock is the test's).
  const schedule = new BackupScheduler({ dataDir: d, retentionDays: 7, log: silentLogger, backup: backupNow });
  expect(await schedule.runIfDue(now - 3600_000)).toBeNull(); // the newest is 23 hours old
  expect((await schedule.runIfDue(now))?.stamp).toBe("20261125T120000Z");
  expect(await schedule.runIfDue(now + 3600_000)).toBeNull();
}, 60_000);

test("the server's scheduled copy is made by a child process (`quire backup`), never on the server's own thread", async () => {
  const d = dir();
  const db = openDatabase(join(d, "quire.db"));
  db.exec("CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('kept')");
  db.close();
  const schedule = new BackupScheduler({ dataDir: d, retentionDays: 7, log: silentLogger });
  const made = await schedule.runIfDue();
  expect(made?.files).toHaveLength(1);
  const copy = new Database(made!.files[0]!.path, { readonly: true });
  expect(copy.query("SELECT v FROM t").get()).toEqual({ v: "kept" });
  copy.close();
  expect(await schedule.runIfDue()).toBeNull(); // one a day
  await schedule.stop();
}, 60_000);

test("restore: `quire backup` beside a running server, a fresh data directory from it and the workspaces, a server on it", async () => {
  const src = dir();
  const s: ServeProcess = await startServe(src);
  procs.push(s.proc);
  const user = await registerUser(s.base);
  const page = await user.client.post(`/api/v1/content/${user.workspaceSlug}/restored/page`, { title: "Kept", body: "Restored body text\n" });
  expect(page.status).toBe(201);

  const backup = await runCli(["backup", "--json", "--data-dir", src]);
  expect(backup.code).toBe(0);
  const made = JSON.parse(backup.stdout) as { files: Array<{ database: string; path: string; bytes: number }> };
  expect(made.files[0]).toMatchObject({ database: "quire", bytes: expect.any(Number) });
  // Nothing secret is copied into backups/.
  expect(readdirSync(join(src, "backups")).every((n) => /^(quire|analytics)-\d{8}T\d{6}Z\.db$/.test(n))).toBe(true);
  expect((await runCli(["stop", "--data-dir", src])).code).toBe(0);

  // The README's procedure.
  const fresh = dir();
  copyFileSync(made.files.find((f) => f.database === "quire")!.path, join(fresh, "quire.db"));
  cpSync(join(src, "workspaces"), join(fresh, "workspaces"), { recursive: true });
  for (const secret of ["jwt-private.pem", "api-key-pepper"]) {
    if (existsSync(join(src, secret))) copyFileSync(join(src, secret), join(fresh, secret));
  }
  const restored = await startServe(fresh);
  procs.push(restored.proc);
  const client = new Client(restored.base);
  const login = await client.post("/api/auth/login", { email: user.email, password: user.password });
  expect(login.status).toBe(200);
  client.token = login.body.access_token;
  const read = await client.get(`/api/v1/content/${user.workspaceSlug}/restored/page`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ title: "Kept", content: "Restored body text\n" });
  restored.proc.kill("SIGTERM");
  expect(await restored.exited).toBe(0);
}, 60_000);

test("quire backup without a database fails with exit 1 and makes nothing", async () => {
  const d = dir();
  const r = await runCli(["backup", "--data-dir", d]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("no database to back up");
  expect(existsSync(join(d, "backups"))).toBe(false);
}, 60_000);
