import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { trustworthy } from "../../src/content/page-file-stat.ts";
import type { ReconcileResult } from "../../src/content/reconcile.ts";
import { owner, pageRows, type Owner } from "./support.ts";

/**
 * The start-up reconcile leaves unread a file whose stat (size, mtime and ctime in nanoseconds,
 * inode) is the one recorded when a pass last read it (docs/decisions/startup-reconcile.md). These
 * tests stop and start a real server on one data directory and change files while it is stopped.
 */

let server: TestServer;
const dataDir = tempDir();
beforeAll(async () => {
  server = await startTestServer({ QUIRE_WATCH_FILES: "false" }, { dataDir, keepDir: true });
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Stops the server, runs `whileStopped`, starts it again and waits for its start-up pass over `o`'s workspace. */
async function restart(o: Owner, whileStopped: () => void = () => {}): Promise<ReconcileResult> {
  await server.stop(1000);
  whileStopped();
  server = await startTestServer({ QUIRE_WATCH_FILES: "false" }, { dataDir, keepDir: true });
  for (let i = 0; i < 500 && server.services.reconciler.lastResult(o.wsId) === null; i++) await Bun.sleep(20);
  const result = server.services.reconciler.lastResult(o.wsId);
  if (result === null) throw new Error("the start-up pass did not run");
  return result;
}

/** Waits until the file system's clock has moved past every page file's ctime (a fresh stat is never recorded). */
async function settle(o: Owner): Promise<void> {
  const files = (readdirSync(o.dir, { recursive: true }) as string[]).filter((p) => p.endsWith(".md") && !p.startsWith(".git"));
  for (const f of files) while (!trustworthy(statSync(join(o.dir, f), { bigint: true }), Date.now())) await Bun.sleep(20);
}

const client = (o: Owner) => new Client(server.url, o.client.ip).withToken(o.accessToken);
const live = (o: Owner) => pageRows(server, o.wsId).filter((r) => r.deleted_at === null);
const fileStatOf = (o: Owner, path: string) =>
  server.services.db.query<{ file_stat: string | null }, [string, string]>("SELECT file_stat FROM pages WHERE workspace_id = ? AND path = ? AND deleted_at IS NULL").get(o.wsId, path)!.file_stat;

/** Sets `abs`'s access and modification times back to `ref`'s, to the nanosecond (utimensat, as `touch -r` does). */
function copyTimes(ref: string, abs: string): void {
  const r = Bun.spawnSync(["touch", "-r", ref, abs]);
  if (r.exitCode !== 0) throw new Error(`touch -r failed: ${r.stderr.toString()}`);
}

test("a start reads only what changed while the server was stopped, and finds every change made then", async () => {
  const o = await owner(server);
  const api = client(o);
  for (const name of ["same-size", "edited", "renamed", "deleted", "replaced", "untouched"]) {
    expect((await api.post(`${o.base}/stopped/${name}`, { title: name, body: `The ${name} page.\n` })).status).toBe(201);
  }
  // Quire's own writes are too fresh to trust: the first start reads every file and records its stat.
  await settle(o);
  const first = await restart(o);
  expect(first).toMatchObject({ inserted: 0, updated: 0, orphaned: 0, recovered: 0, aborted: false, problems: [], unchanged: 0 });
  const pages = live(o).length;
  expect(fileStatOf(o, "stopped/untouched.md")).not.toBeNull();

  // Nothing changed: the next start reads no file at all.
  const quiet = await restart(o);
  expect(quiet).toMatchObject({ inserted: 0, updated: 0, orphaned: 0, recovered: 0, problems: [], unchanged: pages });

  const before = (path: string) => statSync(join(o.dir, path), { bigint: true });
  const sameSize = before("stopped/same-size.md");
  const replaced = before("stopped/replaced.md");
  const ref = join(dataDir, "times.ref");
  const result = await restart(o, () => {
    // The same number of bytes, and the modification time set back to the nanosecond: only the
    // ctime (which a write moves and no tool can set) tells this file changed.
    const abs = join(o.dir, "stopped/same-size.md");
    writeFileSync(ref, "");
    copyTimes(abs, ref);
    writeFileSync(abs, readFileSync(abs, "utf8").replace("The same-size page.", "THE SAME-SIZE PAGE."));
    copyTimes(ref, abs);
    const after = statSync(abs, { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([sameSize.size, sameSize.mtimeNs, sameSize.ino]);
    expect(after.ctimeNs).not.toBe(sameSize.ctimeNs);
    // Deleted and written anew, same size and times set back: a new ctime (and most often a new inode).
    const replacedAbs = join(o.dir, "stopped/replaced.md");
    copyTimes(replacedAbs, ref);
    const text = readFileSync(replacedAbs, "utf8").replace("The replaced page.", "The REPLACED page.");
    rmSync(replacedAbs);
    writeFileSync(replacedAbs, text);
    copyTimes(ref, replacedAbs);
    expect(statSync(replacedAbs, { bigint: true }).size).toBe(replaced.size);

    writeFileSync(join(o.dir, "stopped/edited.md"), readFileSync(join(o.dir, "stopped/edited.md"), "utf8") + "\nEdited while stopped.\n");
    mkdirSync(join(o.dir, "moved"));
    renameSync(join(o.dir, "stopped/renamed.md"), join(o.dir, "moved/renamed.md"));
    rmSync(join(o.dir, "stopped/deleted.md"));
    writeFileSync(join(o.dir, "stopped/new.md"), "---\ntitle: New while stopped\n---\nHello.\n");
  });
  // same-size, replaced, edited: updated; renamed: moved (counted as updated); deleted: orphaned; new: inserted.
  expect(result).toMatchObject({ inserted: 1, updated: 4, orphaned: 1, recovered: 0, aborted: false, problems: [] });
  expect(result.unchanged).toBe(pages - 5);

  const read = async (path: string) => (await client(o).get(`${o.base}/${path}`)).body;
  expect((await read("stopped/same-size")).content).toBe("THE SAME-SIZE PAGE.\n");
  expect((await read("stopped/replaced")).content).toBe("The REPLACED page.\n");
  expect((await read("stopped/edited")).content).toContain("Edited while stopped.");
  expect((await read("moved/renamed")).title).toBe("renamed");
  expect((await client(o).get(`${o.base}/stopped/renamed`)).status).toBe(404);
  expect((await client(o).get(`${o.base}/stopped/deleted`)).status).toBe(404);
  expect((await read("stopped/new")).title).toBe("New while stopped");
  expect((await read("stopped/untouched")).content).toBe("The untouched page.\n");
}, 60_000);

test("a copy of a file left unread gets an id of its own; the original keeps its id", async () => {
  const o = await owner(server);
  const orig = await client(o).post(`${o.base}/original`, { title: "Original", body: "same\n" });
  expect(orig.status).toBe(201);
  await settle(o);
  await restart(o);
  const pages = live(o).length;
  const r = await restart(o, () => copyFileSync(join(o.dir, "original.md"), join(o.dir, "copy.md")));
  expect(r).toMatchObject({ inserted: 1, updated: 0, orphaned: 0, unchanged: pages });
  expect(r.problems.map((p) => [p.kind, p.path])).toEqual([["duplicate_id", "copy.md"]]);
  const copy = live(o).find((x) => x.path === "copy.md")!;
  expect(copy.id).not.toBe(orig.body.page_id);
  expect(live(o).find((x) => x.path === "original.md")!.id).toBe(orig.body.page_id);
  expect(readFileSync(join(o.dir, "copy.md"), "utf8")).toContain(`id: ${copy.id}`);
}, 60_000);

test("Quire's own write forgets the recorded stat, so the next start reads that file again", async () => {
  const o = await owner(server);
  expect((await client(o).post(`${o.base}/own/write`, { title: "Own", body: "one\n" })).status).toBe(201);
  await settle(o);
  await restart(o);
  await restart(o); // records every stat, then skips them
  expect(fileStatOf(o, "own/write.md")).not.toBeNull();
  const page = await client(o).get(`${o.base}/own/write`);
  const saved = await client(o).put(`${o.base}/own/write`, { body: "two\n", lastKnownHash: page.body.content_hash });
  expect(saved.status).toBe(200);
  expect(fileStatOf(o, "own/write.md")).toBeNull();
  await settle(o);
  const pages = live(o).length;
  const result = await restart(o);
  expect(result).toMatchObject({ inserted: 0, updated: 0, orphaned: 0, problems: [], unchanged: pages - 1 });
  expect(fileStatOf(o, "own/write.md")).not.toBeNull();
  expect((await client(o).get(`${o.base}/own/write`)).body.content).toBe("two\n");
}, 60_000);

test("a file with a problem is read at every start, so its problem is reported each time", async () => {
  const o = await owner(server);
  writeFileSync(join(o.dir, "broken.md"), "---\ntitle: [unclosed\n---\nbody\n");
  await settle(o);
  await restart(o);
  for (let i = 0; i < 2; i++) {
    const r = await restart(o);
    expect(r.problems.map((p) => [p.kind, p.path])).toEqual([["invalid_yaml", "broken.md"]]);
    expect(r.unchanged).toBe(live(o).length - 1);
  }
  expect(fileStatOf(o, "broken.md")).toBeNull();
}, 60_000);

test("a start that replaces the search index reads the files it would have skipped, so no page drops out of search", async () => {
  const o = await owner(server);
  expect((await client(o).post(`${o.base}/kept/xylophone`, { title: "Xylophone", body: "A quietly skipped page.\n" })).status).toBe(201);
  await settle(o);
  await restart(o);
  const r = await restart(o, () => {
    // More changes than the page-by-page updates take: the index gets one reset with every page.
    mkdirSync(join(o.dir, "bulk"));
    for (let i = 0; i < 120; i++) writeFileSync(join(o.dir, "bulk", `p${i}.md`), `---\ntitle: Bulk ${i}\n---\nbulk\n`);
  });
  expect(r).toMatchObject({ inserted: 120, problems: [] });
  expect(r.unchanged).toBeGreaterThan(0);
  const search = async (q: string) => (await client(o).get(`/api/v1/workspaces/${o.wsId}/search?q=${q}&limit=100`)).body;
  // The reset runs in batches: wait until the index is complete and holds the new pages.
  for (let i = 0; i < 200; i++) {
    const bulk = await search("bulk");
    if (bulk.indexing === undefined && bulk.items.length === 100) break;
    await Bun.sleep(50);
  }
  expect((await search("xylophone")).items.map((h: { path: string }) => h.path)).toEqual(["kept/xylophone.md"]);
}, 60_000);

test("a pass for a change seen while running (not a start) reads every file", async () => {
  const o = await owner(server);
  await settle(o);
  await restart(o);
  const again = await server.services.reconciler.reconcile(o.wsId);
  expect(again.unchanged).toBe(0);
}, 60_000);
