import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { fileOf, owner, pageRows, recordBus, type Owner } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ QUIRE_WATCH_FILES: "false" }); // these tests drive the reconciler by hand
});
afterAll(() => server.close());

const reconcile = (o: Owner) => server.services.reconciler.reconcile(o.wsId);
const write = (o: Owner, path: string, text: string | Uint8Array) => {
  mkdirSync(join(o.dir, path, ".."), { recursive: true });
  writeFileSync(join(o.dir, path), text);
};
const live = (o: Owner) => pageRows(server, o.wsId).filter((r) => r.deleted_at === null);

test("new files get an id injected as one line (or a new block) and a record; nothing else in the file changes", async () => {
  const o = await owner(server);
  const withFm = "---\n# keep me\ntitle: From disk\ntags: a, b\n---\nBody\n";
  write(o, "disk/with-fm.md", withFm);
  write(o, "disk/no-fm.md", "# Just a heading\n\ntext\n");
  write(o, "disk/.hidden.md", "---\ntitle: hidden\n---\n");
  write(o, ".git/HEAD.md", "not a page");
  write(o, "assets/readme.md", "uploads folder");
  write(o, "disk/notes.txt", "not markdown");
  const bus = recordBus(server, o.wsId);
  const r = await reconcile(o);
  bus.stop();
  expect(r).toMatchObject({ inserted: 2, updated: 0, orphaned: 0, recovered: 0, aborted: false, problems: [] });
  const a = live(o).find((p) => p.path === "disk/with-fm.md")!;
  const b = live(o).find((p) => p.path === "disk/no-fm.md")!;
  expect(fileOf(o, "disk/with-fm.md")).toBe(`---\nid: ${a.id}\n# keep me\ntitle: From disk\ntags: a, b\n---\nBody\n`);
  expect(fileOf(o, "disk/no-fm.md")).toBe(`---\nid: ${b.id}\n---\n\n# Just a heading\n\ntext\n`);
  expect(b.title).toBe("No fm");
  const page = await o.client.get(`${o.base}/disk/with-fm`);
  expect(page.body).toMatchObject({ page_id: a.id, title: "From disk", tags: ["a", "b"], content: "Body\n" });
  expect(live(o).some((p) => p.path.includes("hidden") || p.path.startsWith(".git") || p.path.startsWith("assets"))).toBe(false);
  // The search index hears about each changed page (a small pass updates page by page).
  const upserted = bus.changes.flatMap((c) => (c.kind === "upsert" ? [c.page.path] : []));
  expect(upserted.sort()).toEqual(["disk/no-fm.md", "disk/with-fm.md"]);
  // A second run finds nothing to do and touches no file.
  const again = await reconcile(o);
  expect(again).toMatchObject({ inserted: 0, updated: 0, orphaned: 0, recovered: 0 });
  expect(fileOf(o, "disk/no-fm.md")).toBe(`---\nid: ${b.id}\n---\n\n# Just a heading\n\ntext\n`);
});

test("tier 1: a file moved outside Quire keeps its record by frontmatter id; an edited file updates it", async () => {
  const o = await owner(server);
  const p = await o.client.post(`${o.base}/tier1/a`, { title: "A", body: "one\n" });
  mkdirSync(join(o.dir, "elsewhere"));
  renameSync(join(o.dir, "tier1/a.md"), join(o.dir, "elsewhere/renamed.md"));
  writeFileSync(join(o.dir, "welcome.md"), readFileSync(join(o.dir, "welcome.md"), "utf8") + "\nEdited on disk.\n");
  const r = await reconcile(o);
  expect(r).toMatchObject({ inserted: 0, updated: 2, orphaned: 0 });
  expect(live(o).find((x) => x.id === p.body.page_id)!.path).toBe("elsewhere/renamed.md");
  expect((await o.client.get(`${o.base}/welcome`)).body.content).toContain("Edited on disk.");
});

test("tier 2: a file without an id at a known path gets that record's id; tier 3: a moved id-less file is recovered by hash", async () => {
  const o = await owner(server);
  const p = await o.client.post(`${o.base}/tier2`, { title: "T2", body: "x\n" });
  // Someone strips the id line in an editor.
  writeFileSync(join(o.dir, "tier2.md"), "---\ntitle: T2\n---\n\nx\n");
  let r = await reconcile(o);
  // The injected line restores the file exactly as recorded, so the record itself is unchanged.
  expect(r).toMatchObject({ inserted: 0, updated: 0, orphaned: 0 });
  expect(fileOf(o, "tier2.md")).toBe(`---\nid: ${p.body.page_id}\ntitle: T2\n---\n\nx\n`);

  // A page whose file has invalid YAML cannot carry an id; moved, it is found again by content hash.
  write(o, "broken.md", "---\ntitle: [unclosed\n---\nbody\n");
  r = await reconcile(o);
  const broken = live(o).find((x) => x.path === "broken.md")!;
  expect(broken.title).toBe("Broken");
  expect(r.problems.map((x) => [x.kind, x.path])).toEqual([["invalid_yaml", "broken.md"]]);
  expect(fileOf(o, "broken.md")).toBe("---\ntitle: [unclosed\n---\nbody\n");
  renameSync(join(o.dir, "broken.md"), join(o.dir, "moved-broken.md"));
  r = await reconcile(o);
  expect(r).toMatchObject({ inserted: 0, recovered: 1, orphaned: 0 });
  expect(live(o).find((x) => x.id === broken.id)!.path).toBe("moved-broken.md");
});

test("records without a file are soft-deleted and recovered within 24 h when the file comes back", async () => {
  const o = await owner(server);
  const p = await o.client.post(`${o.base}/gone`, { title: "Gone", body: "soon\n" });
  const text = fileOf(o, "gone.md")!;
  rmSync(join(o.dir, "gone.md"));
  let r = await reconcile(o);
  expect(r).toMatchObject({ orphaned: 1 });
  expect(pageRows(server, o.wsId).find((x) => x.id === p.body.page_id)!.deleted_at).not.toBeNull();
  expect((await o.client.get(`${o.base}/gone`)).status).toBe(404);
  write(o, "back/again.md", text);
  r = await reconcile(o);
  expect(r).toMatchObject({ recovered: 1, inserted: 0 });
  const row = pageRows(server, o.wsId).find((x) => x.id === p.body.page_id)!;
  expect(row).toMatchObject({ path: "back/again.md", deleted_at: null });
});

test("safety stop: a missing or Markdown-free workspace folder deletes nothing and reports the error", async () => {
  const o = await owner(server);
  const before = live(o).length;
  expect(before).toBeGreaterThan(0);
  renameSync(o.dir, o.dir + ".away");
  let r = await reconcile(o);
  expect(r.aborted).toBe(true);
  expect(r.problems[0]!.kind).toBe("safety_stop");
  expect(live(o).length).toBe(before);
  expect(server.services.reconciler.lastResult(o.wsId)!.aborted).toBe(true);
  mkdirSync(o.dir);
  writeFileSync(join(o.dir, "readme.txt"), "no markdown here");
  r = await reconcile(o);
  expect(r.aborted).toBe(true);
  expect(live(o).length).toBe(before);
  rmSync(o.dir, { recursive: true });
  renameSync(o.dir + ".away", o.dir);
  r = await reconcile(o);
  expect(r).toMatchObject({ aborted: false, orphaned: 0 });
});

test("non-UTF-8 files are reported and skipped; duplicate ids: the copy gets a fresh id", async () => {
  const o = await owner(server);
  write(o, "latin1.md", new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0x74, 0x3a, 0xe9, 0x0a, 0x2d, 0x2d, 0x2d, 0x0a]));
  const orig = await o.client.post(`${o.base}/orig`, { title: "Orig", body: "same\n" });
  const text = fileOf(o, "orig.md")!;
  write(o, "copy.md", text);
  const r = await reconcile(o);
  expect(r.problems.map((p) => [p.kind, p.path]).sort()).toEqual([["duplicate_id", "copy.md"], ["not_utf8", "latin1.md"]]);
  expect(r.inserted).toBe(1);
  const copy = live(o).find((x) => x.path === "copy.md")!;
  expect(copy.id).not.toBe(orig.body.page_id);
  expect(fileOf(o, "copy.md")).toBe(text.replace(`id: ${orig.body.page_id}`, `id: ${copy.id}`));
  expect(fileOf(o, "orig.md")).toBe(text);
  expect(live(o).some((x) => x.path === "latin1.md")).toBe(false);
  expect(readFileSync(join(o.dir, "latin1.md"))[6]).toBe(0xe9);
});

test("a file deleted while the scan is reading is reported, and its record is soft-deleted, not crashed on", async () => {
  const o = await owner(server);
  for (let i = 0; i < 400; i++) write(o, `bulk/p${String(i).padStart(3, "0")}.md`, `---\ntitle: P${i}\n---\n`);
  await reconcile(o);
  expect(live(o).filter((x) => x.path.startsWith("bulk/")).length).toBe(400);
  // The scan yields to the event loop every 100 files: delete the last files in between.
  const running = reconcile(o);
  await Bun.sleep(0);
  for (let i = 350; i < 400; i++) rmSync(join(o.dir, `bulk/p${i}.md`), { force: true });
  const r = await running;
  expect(r.aborted).toBe(false);
  expect(r.orphaned).toBe(50);
  expect(r.problems.map((p) => p.kind)).toEqual(Array(50).fill("vanished"));
  expect(live(o).filter((x) => x.path.startsWith("bulk/")).length).toBe(350);
}, 15_000); // 400 fsync'd id injections: slow on a busy disk

test("the server reconciles every workspace in the background at start", async () => {
  const o = await owner(server);
  write(o, "while-down.md", "---\ntitle: Written while the server was down\n---\n");
  const dataDir = server.dataDir;
  await server.stop(1000);
  server = await startTestServer({}, { dataDir });
  // Reads are served at once; the background pass picks the file up shortly after start.
  for (let i = 0; i < 250 && server.services.reconciler.lastResult(o.wsId) === null; i++) await Bun.sleep(20);
  const fresh = await new Client(server.url, o.client.ip).withToken(o.accessToken).get(`${o.base}/while-down`);
  expect(fresh.status).toBe(200);
  expect(fresh.body.title).toBe("Written while the server was down");
});

test("an alias bomb in frontmatter is invalid YAML: reported, the page still loads, and reading it stays small and fast", async () => {
  const o = await owner(server);
  let yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (let i = 1; i < 10; i++) yaml += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(", ")}]\n`;
  write(o, "bomb.md", `---\ntitle: Bomb\n${yaml}---\nbody\n`);
  const r = await reconcile(o);
  expect(r.problems.map((p) => [p.kind, p.path])).toEqual([["invalid_yaml", "bomb.md"]]);
  const started = performance.now();
  const page = await o.client.get(`${o.base}/bomb`);
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ title: "Bomb", frontmatter: {}, content: "body\n" });
  expect(page.text.length).toBeLessThan(10_000);
  expect(performance.now() - started).toBeLessThan(1000);
});
