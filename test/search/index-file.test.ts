import { afterEach, expect, test } from "bun:test";
import { Users } from "../../src/identity/users.ts";
import { Restrictions } from "../../src/access/restrictions/restrictions-service.ts";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { openDatabase, migrate, type Db } from "../../src/db/database.ts";
import { EventBus, type PageSnapshot } from "../../src/core/event-bus.ts";
import { SearchService, type SearchOptions } from "../../src/search/search-service.ts";
import { WorkspaceIndex } from "../../src/search/workspace-index.ts";
import { WorkspaceRecords } from "../../src/workspaces/workspace-records.ts";
import { Permissions } from "../../src/access/permissions.ts";
import { silentLogger } from "../../src/core/log.ts";
import { ulid } from "../../src/core/ids.ts";
import { sha256Hex } from "../../src/core/crypto.ts";
import { tempDir } from "../helpers/server.ts";
import { snapshot } from "../collab/support.ts";

/** The search service on its own, over a real database and data directory (as `quire rebuild` uses it). */
function setup() {
  const dir = tempDir();
  const db = openDatabase(join(dir, "quire.db"));
  migrate(db);
  const now = new Date().toISOString();
  db.query("INSERT INTO organizations (id, name, handle, created_at) VALUES ('o', 'o', 'o', ?)").run(now);
  const workspaceId = ulid();
  db.query(
    "INSERT INTO workspaces (id, org_id, name, slug, webhook_secret, created_at, updated_at) VALUES (?, 'o', 'w', 'w', 's', ?, ?)",
  ).run(workspaceId, now, now);
  const bus = new EventBus();
  const workspaces = new WorkspaceRecords(db);
  const services: SearchService[] = [];
  const service = (opts: SearchOptions = {}) => {
    const s = new SearchService({ db, dataDir: dir, bus, permissions: new Permissions(db, workspaces), restrictions: new Restrictions({ db, permissions: new Permissions(db, workspaces), users: new Users(db) }), workspaces, log: silentLogger }, opts);
    services.push(s);
    return s;
  };
  const cleanup = () => {
    for (const s of services) s.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, db, bus, workspaceId, service, cleanup };
}

/** A page as the ledger keeps it: the file and the `pages` row. */
function writePage(db: Db, dir: string, workspaceId: string, page: PageSnapshot): void {
  const text = `---\nid: ${page.page_id}\ntitle: ${page.title}\n---\n\n${page.body}`;
  const file = join(dir, "workspaces", workspaceId, page.path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  const now = new Date().toISOString();
  db.query(
    `INSERT INTO pages (id, workspace_id, path, title, description, tags, content_hash, frontmatter_hash, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'sha256:0', ?, ?)
     ON CONFLICT (id) DO UPDATE SET content_hash = excluded.content_hash, title = excluded.title`,
  ).run(page.page_id, workspaceId, page.path, page.title, page.description, JSON.stringify(page.tags), `sha256:${sha256Hex(text)}`, now, now);
}

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

test("when most pages match, pages with the words in their title still lead, and the scores come out in order", () => {
  const t = setup();
  cleanups.push(t.cleanup);
  // Capped as a 10,000-page workspace would be, scaled down: rank all up to 10 matches, else the newest 10.
  const capped = t.service({ rankAllMin: 10, recentRanked: 10 });
  capped.start();
  const oldest = snapshot({ title: "Common questions", body: "common answers" });
  t.bus.publishChange({ kind: "upsert", workspace_id: t.workspaceId, page: oldest });
  for (let i = 0; i < 40; i++) {
    t.bus.publishChange({ kind: "upsert", workspace_id: t.workspaceId, page: snapshot({ title: `Page ${i}`, body: `a common word in page ${i}` }) });
  }
  const hits = capped.searchWorkspace(t.workspaceId, "common", 8);
  expect(hits).toHaveLength(8);
  expect(hits[0]!.title).toBe("Common questions");
  const scores = hits.map((h) => h.score);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));
});

test("a restart re-reads only pages changed meanwhile, drops deleted ones, and rebuild() starts from the ledger", () => {
  const t = setup();
  cleanups.push(t.cleanup);
  const first = t.service();
  first.start();
  const kept = snapshot({ title: "Kept page", path: "kept.md", body: "aardvark" });
  const changed = snapshot({ title: "Changed page", path: "changed.md", body: "before" });
  const deleted = snapshot({ title: "Deleted page", path: "deleted.md", body: "aardvark too" });
  for (const p of [kept, changed, deleted]) {
    writePage(t.db, t.dir, t.workspaceId, p);
    t.bus.publishChange({ kind: "upsert", workspace_id: t.workspaceId, page: p });
  }
  expect(first.searchWorkspace(t.workspaceId, "aardvark", 10).map((h) => h.title).sort()).toEqual(["Deleted page", "Kept page"]);
  first.stop();

  // While no server runs: one page edited on disk, one deleted.
  writePage(t.db, t.dir, t.workspaceId, { ...changed, body: "after the edit: pangolin" });
  t.db.query("UPDATE pages SET deleted_at = ? WHERE id = ?").run(new Date().toISOString(), deleted.page_id);

  const second = t.service();
  expect(second.searchWorkspace(t.workspaceId, "pangolin", 10).map((h) => h.title)).toEqual(["Changed page"]);
  expect(second.loadedFrom(t.workspaceId)).toBe("file");
  expect(second.searchWorkspace(t.workspaceId, "before", 10)).toEqual([]);
  expect(second.searchWorkspace(t.workspaceId, "aardvark", 10).map((h) => h.title)).toEqual(["Kept page"]);

  // A page published without a ledger record is gone after a rebuild, which reads the ledger only.
  t.bus.publishChange({ kind: "upsert", workspace_id: t.workspaceId, page: snapshot({ title: "Phantom aardvark" }) });
  expect(second.searchWorkspace(t.workspaceId, "aardvark", 10)).toHaveLength(1); // not subscribed: second never started
  expect(second.rebuild(t.workspaceId)).toEqual({ pages: 2 });
  expect(second.loadedFrom(t.workspaceId)).toBe("ledger");
  expect(second.searchWorkspace(t.workspaceId, "aardvark", 10).map((h) => h.title)).toEqual(["Kept page"]);
});

test("index files of the earlier format are removed; the workspace is indexed again from the ledger", () => {
  const t = setup();
  cleanups.push(t.cleanup);
  const page = snapshot({ title: "Ledger page", path: "p.md", body: "ocelot" });
  writePage(t.db, t.dir, t.workspaceId, page);
  const stale = join(t.dir, "search", `${t.workspaceId}.json`);
  mkdirSync(dirname(stale), { recursive: true });
  writeFileSync(stale, JSON.stringify({ format: 1 }));
  const s = t.service();
  expect(s.searchWorkspace(t.workspaceId, "ocelot", 5).map((h) => h.page_id)).toEqual([page.page_id]);
  expect(s.loadedFrom(t.workspaceId)).toBe("ledger");
  expect(existsSync(stale)).toBe(false);
  expect(existsSync(join(t.dir, "search", "index.db"))).toBe(true);
});

test("dropping a workspace's index removes its tables; the next search builds it again", () => {
  const t = setup();
  cleanups.push(t.cleanup);
  const s = t.service();
  s.start();
  t.bus.publishChange({ kind: "upsert", workspace_id: t.workspaceId, page: snapshot({ title: "Transient lemur" }) });
  expect(s.searchWorkspace(t.workspaceId, "lemur", 5)).toHaveLength(1);
  s.drop(t.workspaceId);
  expect(s.loadedFrom(t.workspaceId)).toBe(null);
  expect(s.searchWorkspace(t.workspaceId, "lemur", 5)).toEqual([]);
  expect(s.loadedFrom(t.workspaceId)).toBe("ledger");
});

test("background merging of segments finishes: steps report work only while segments remain", () => {
  const t = setup();
  cleanups.push(t.cleanup);
  const db = openDatabase(join(t.dir, "merge.db"));
  cleanups.unshift(() => db.close());
  db.exec("CREATE TABLE indexed (workspace_id TEXT PRIMARY KEY, built_at TEXT NOT NULL)");
  const index = new WorkspaceIndex(db, t.workspaceId);
  index.create();
  // One commit per page, as the ledger's changes arrive: one segment each.
  for (let i = 0; i < 60; i++) index.upsert(snapshot({ title: `Page ${i}`, body: `walrus ${i} `.repeat(50) }), "");
  let steps = 0;
  while (index.mergeStep(32)) {
    steps++;
    expect(steps).toBeLessThan(100);
  }
  expect(steps).toBeGreaterThan(0);
  expect(index.mergeStep(32)).toBe(false);
  expect(index.rank('"walrus"', 100)).toHaveLength(60);
});
