import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { snapshot, starterWorkspace, writeLedgerPage } from "../collab/support.ts";

/**
 * A workspace of a few thousand small pages whose search index is built from scratch, as on the
 * first start after `search/` is deleted: the build runs in batches, so the server answers while
 * it goes on, and what the ledger changes meanwhile is what the finished index holds.
 */
const PAGES = 3000;
const dataDir = tempDir();
let owner: TestUser;
let ws: { id: string; slug: string };
let servers: TestServer[] = [];
const bulk: ReturnType<typeof snapshot>[] = [];

/** Deterministic filler text: 150 words from a vocabulary of a few thousand made-up words. */
let seed = 7;
const SYLLABLES = ["ka", "lo", "mi", "ren", "tor", "vel", "an", "dra", "po", "sit", "ul", "gen", "mar", "tek"];
function filler(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    let w = "";
    for (let j = 0; j < 3; j++) w += SYLLABLES[(seed = (seed * 1103515245 + 12345) & 0x7fffffff) % SYLLABLES.length];
    out.push(w);
  }
  return out.join(" ");
}

/**
 * A word only page i holds: letters only (the query side splits words at digits), all of one
 * length, each digit spelt as its own pair of letters, so no marker is a prefix of another or one
 * edit away from one (search completes a last word as a prefix and tolerates one typo).
 */
const marker = (i: number) =>
  "zq" +
  String(i)
    .padStart(4, "0")
    .split("")
    .map((d) => "abcdefghij"[Number(d)]! + "klmnoprstu"[Number(d)]!)
    .join("");

async function start(): Promise<TestServer> {
  const server = await startTestServer({}, { dataDir, keepDir: true });
  servers.push(server);
  return server;
}

async function stop(server: TestServer): Promise<void> {
  servers = servers.filter((s) => s !== server);
  await server.close();
}

/** Signs the owner in against a (re)started server; sessions live in quire.db, so the same user works. */
async function signIn(server: TestServer): Promise<Client> {
  const client = new Client(server.url);
  const r = await client.post("/api/auth/login", { email: owner.email, password: owner.password });
  expect(r.status).toBe(200);
  client.token = r.body.access_token;
  return client;
}

const searchFor = (client: Client, q: string) => client.get(`/api/v1/workspaces/${ws.id}/search?q=${encodeURIComponent(q)}&limit=100`);

/** Rows in the workspace's index table, read from the file (null when the table is not there). */
function indexedRows(): number | null {
  const db = new Database(join(dataDir, "search", "index.db"), { readonly: true });
  try {
    return db.query<{ n: number }, []>(`SELECT count(*) AS n FROM "d_${ws.id}"`).get()!.n;
  } catch {
    return null;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  const first = await start();
  owner = await registerUser(first.url);
  ws = starterWorkspace(first, owner.id);
  // Written straight into the ledger (files and rows), as a workspace cloned while the server was down would be.
  for (let i = 0; i < PAGES; i++) {
    const page = snapshot({ path: `bulk/p${i}.md`, title: `Bulk page ${i}`, body: `harbor lighthouse ${marker(i)} ferry tide. ${filler(250)}` });
    writeLedgerPage(first, ws.id, page);
    bulk.push(page);
  }
  await stop(first);
});

afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("while the index is built from scratch, requests are answered, searches return what is indexed so far, and saves and deletes made meanwhile are what the finished index holds", async () => {
  rmSync(join(dataDir, "search"), { recursive: true, force: true });
  const server = await start();
  const client = await signIn(server);
  const { search } = server.services;

  // The event loop's longest stall while the build runs: a 5 ms timer's worst lateness.
  let last = performance.now();
  let worstStall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worstStall = Math.max(worstStall, now - last - 5);
    last = now;
  }, 5);

  // The first search starts the build and answers at once from the first batch.
  const first = await searchFor(client, "harbor");
  expect(first.status).toBe(200);
  expect(first.body.indexing).toEqual({ indexed: expect.any(Number), total: expect.any(Number) });
  expect(first.body.indexing.total).toBeGreaterThanOrEqual(PAGES);
  expect(first.body.indexing.indexed).toBeLessThan(first.body.indexing.total);
  expect(first.body.items.length).toBeLessThanOrEqual(100);
  expect(search.indexing(ws.id)).not.toBeNull();

  // Mid-build: pages saved and deleted through the content API, early, middle and late in the workspace.
  const edited = [0, PAGES / 2, PAGES - 1];
  const deleted = [1, PAGES / 2 + 1, PAGES - 2];
  // Sent together, as several writers would: each is answered between two batches, so the whole
  // round takes about one request's time rather than nine (one after another they could outlast
  // the build on a busy machine, and the test would then prove nothing about a build under way).
  await Promise.all([
    ...edited.map(async (i) => {
      const page = await client.get(`/api/v1/content/${ws.slug}/bulk/p${i}.md`);
      expect(page.status).toBe(200);
      const saved = await client.put(`/api/v1/content/${ws.slug}/bulk/p${i}.md`, { body: `rewritten as quagmire ${i}`, lastKnownHash: page.body.content_hash });
      expect(saved.status).toBe(200);
    }),
    ...deleted.map(async (i) => expect((await client.delete(`/api/v1/content/${ws.slug}/bulk/p${i}.md`)).status).toBe(204)),
  ]);
  expect(search.indexing(ws.id)).not.toBeNull(); // all of that happened during the build

  // Health checks are answered while the build goes on (as were the saves), each within a batch or two.
  let answeredDuringBuild = 0;
  let slowest = 0;
  while (search.indexing(ws.id) !== null) {
    const t = performance.now();
    const health = await client.get("/api/health");
    expect(health.status).toBe(200);
    slowest = Math.max(slowest, performance.now() - t);
    if (search.indexing(ws.id) !== null) answeredDuringBuild++;
  }
  clearInterval(timer);
  expect(answeredDuringBuild).toBeGreaterThan(0);
  // Generous for a loaded 2-core machine: one batch is about 10 ms of work, the whole build several times that.
  expect(slowest).toBeLessThan(400);
  expect(worstStall).toBeLessThan(400);

  const done = await searchFor(client, "harbor");
  expect(done.body.indexing).toBeUndefined();
  expect(search.indexedPages(ws.id)).toBe(indexedRows()!);
  const live = server.services.db
    .query<{ n: number }, [string]>("SELECT count(*) AS n FROM pages WHERE workspace_id = ? AND deleted_at IS NULL")
    .get(ws.id)!.n;
  expect(indexedRows()).toBe(live);

  // Saved pages are found by their new text, not their old; deleted ones not at all; the rest as written.
  const rewritten = (await searchFor(client, "quagmire")).body.items.map((h: any) => h.path).sort();
  expect(rewritten).toEqual(edited.map((i) => `bulk/p${i}.md`).sort());
  for (const i of edited) expect((await searchFor(client, marker(i))).body.items).toEqual([]);
  for (const i of deleted) expect((await searchFor(client, marker(i))).body.items).toEqual([]);
  for (const i of [2, PAGES / 2 + 2, PAGES - 3]) {
    expect((await searchFor(client, marker(i))).body.items.map((h: any) => h.path)).toEqual([`bulk/p${i}.md`]);
  }
  await stop(server);
}, 30_000);

test("a reset from the reconciler during a build replaces it; a page changed on disk is found by its new text", async () => {
  rmSync(join(dataDir, "search"), { recursive: true, force: true });
  const server = await start();
  const client = await signIn(server);
  const { search, reconciler } = server.services;
  expect((await searchFor(client, "harbor")).body.indexing).toBeDefined();

  // A file edited outside Quire (a git pull), then a reconcile that announces the whole workspace.
  const target = 10;
  const file = join(dataDir, "workspaces", ws.id, `bulk/p${target}.md`);
  writeFileSync(file, `---\nid: ${bulk[target]!.page_id}\ntitle: Bulk page ${target}\n---\n\nharbor pelican ${marker(target)}\n`);
  const pass = reconciler.reconcile(ws.id, { announce: true });
  const other = 20;
  await pass;
  // A save while the reset's batches run: the reset's copy of that page is older and must not win.
  expect(search.indexing(ws.id)).not.toBeNull();
  const page = await client.get(`/api/v1/content/${ws.slug}/bulk/p${other}.md`);
  expect((await client.put(`/api/v1/content/${ws.slug}/bulk/p${other}.md`, { body: "marmot burrow", lastKnownHash: page.body.content_hash })).status).toBe(200);

  await search.whenIndexed(ws.id);
  expect((await searchFor(client, "pelican")).body.items.map((h: any) => h.path)).toEqual([`bulk/p${target}.md`]);
  expect((await searchFor(client, "marmot")).body.items.map((h: any) => h.path)).toEqual([`bulk/p${other}.md`]);
  expect((await searchFor(client, marker(other))).body.items).toEqual([]);
  await stop(server);
}, 30_000);

test("a shutdown in the middle of a build leaves a usable index; the next start finishes it from the ledger", async () => {
  rmSync(join(dataDir, "search"), { recursive: true, force: true });
  let server = await start();
  let client = await signIn(server);
  expect((await searchFor(client, "harbor")).body.indexing).toBeDefined();
  // Let a few batches commit, then stop while the build is still running.
  await Bun.sleep(30);
  expect(server.services.search.indexing(ws.id)).not.toBeNull();
  await stop(server);

  const partial = indexedRows();
  expect(partial).not.toBeNull();
  expect(partial!).toBeGreaterThan(0);
  expect(partial!).toBeLessThan(PAGES - 3);

  server = await start();
  client = await signIn(server);
  const resumed = await searchFor(client, "harbor");
  expect(resumed.status).toBe(200);
  await server.services.search.whenIndexed(ws.id);
  // Resumed in the file it left, not rebuilt from nothing.
  expect(server.services.search.loadedFrom(ws.id)).toBe("file");
  const live = server.services.db
    .query<{ n: number }, [string]>("SELECT count(*) AS n FROM pages WHERE workspace_id = ? AND deleted_at IS NULL")
    .get(ws.id)!.n;
  expect(indexedRows()).toBe(live);
  for (const i of [3, 1234, PAGES - 4]) {
    expect((await searchFor(client, marker(i))).body.items.map((h: any) => h.path)).toEqual([`bulk/p${i}.md`]);
  }
  expect(existsSync(join(dataDir, "search", "index.db"))).toBe(true);
  await stop(server);
}, 30_000);
