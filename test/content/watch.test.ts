import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { activityRows, livePage, owner, pageRows, recordBus, type Owner } from "./support.ts";
import type { CommittedWrite } from "../../src/content/committed-write.ts";
import { loadConfig, ConfigError } from "../../src/config.ts";
import { TEST_ENV, tempDir } from "../helpers/server.ts";

/**
 * Changes made outside Quire (an editor writing straight into the workspace folder) are picked up
 * by the folder watcher: debounced ~300 ms, reconciled through the workspace's writer queue, then
 * announced with events and activity rows. The ledger's own writes never start a pass.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const SYSTEM = { id: null, name: "system" };

async function until<T>(what: string, probe: () => T | null | undefined | false, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** Waits until the watcher has been quiet for a while (no pass pending or running). */
async function settled(o: Owner, quietMs = 450): Promise<void> {
  await Bun.sleep(quietMs);
  await server.services.ledger.queue.idle();
}

const passes = () => server.services.watcher!.passes;
const put = (o: Owner, path: string, text: string) => {
  mkdirSync(join(o.dir, path, ".."), { recursive: true });
  writeFileSync(join(o.dir, path), text);
};

test("a file an editor writes into the folder is a page within a second: id injected, event, activity", async () => {
  const o = await owner(server);
  expect(server.services.watcher!.isWatching(o.wsId)).toBe(true);
  const bus = recordBus(server, o.wsId);
  const started = Date.now();
  put(o, "notes/from-editor.md", "---\ntitle: From the editor\n---\n\nWritten on disk.\n");
  const row = await until("the record", () => livePage(server, o.wsId, "notes/from-editor.md"));
  const page = await o.client.get(`${o.base}/notes/from-editor`);
  const elapsed = Date.now() - started;
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ page_id: row.id, title: "From the editor", content: "Written on disk.\n" });
  expect(elapsed).toBeLessThan(1000);
  // The id went in as one line; the rest of the file is as the editor wrote it.
  expect(readFileSync(join(o.dir, "notes/from-editor.md"), "utf8")).toBe(`---\nid: ${row.id}\ntitle: From the editor\n---\n\nWritten on disk.\n`);
  await settled(o);
  bus.stop();
  expect(bus.events).toEqual([
    { type: "page-created", workspace_id: o.wsId, payload: { workspace_id: o.wsId, path: "notes/from-editor.md", actor: SYSTEM } },
  ]);
  expect(bus.changes.map((c) => c.kind === "upsert" && c.page.page_id)).toEqual([row.id]);
  const activity = activityRows(server, o.wsId).filter((a) => a.page_id === row.id);
  expect(activity).toHaveLength(1);
  expect(activity[0]).toMatchObject({ action: "page_created", actor_id: null, actor_name: "system", page_path: "notes/from-editor.md" });
  expect(JSON.parse(activity[0]!.details)).toMatchObject({ source: "filesystem" });
  // The feed shows it too, with the system as actor.
  const feed = await o.client.get(`/api/v1/workspaces/${o.wsId}/activity?action=page_created`);
  expect(feed.body.items[0]).toMatchObject({ action: "page_created", page_path: "notes/from-editor.md" });
});

test("an edit on disk is a page-updated; a rename on disk is a page-moved keeping the id", async () => {
  const o = await owner(server);
  const created = await o.client.post(`${o.base}/edit-me`, { title: "Edit me", body: "one\n" });
  await settled(o);
  const bus = recordBus(server, o.wsId);
  const abs = join(o.dir, "edit-me.md");
  writeFileSync(abs, readFileSync(abs, "utf8") + "two\n");
  await until("the update", () => (bus.events.length > 0 ? true : null));
  expect((await o.client.get(`${o.base}/edit-me`)).body.content).toBe("one\ntwo\n");
  renameSync(abs, join(o.dir, "renamed.md"));
  await until("the move", () => (bus.events.length > 1 ? true : null));
  await settled(o);
  bus.stop();
  expect(bus.events.map((e) => [e.type, e.payload])).toEqual([
    ["page-updated", { workspace_id: o.wsId, path: "edit-me.md", actor: SYSTEM }],
    ["page-moved", { workspace_id: o.wsId, old_path: "edit-me.md", new_path: "renamed.md", actor: SYSTEM }],
  ]);
  expect(livePage(server, o.wsId, "renamed.md")!.id).toBe(created.body.page_id);
  const moved = activityRows(server, o.wsId).filter((a) => a.action === "page_moved");
  expect(moved.map((a) => [a.actor_name, JSON.parse(a.details)])).toEqual([
    ["system", expect.objectContaining({ source: "filesystem", old_path: "edit-me.md", new_path: "renamed.md" })],
  ]);
});

test("a file deleted on disk is soft-deleted; putting it back within 24 h recovers the same page", async () => {
  const o = await owner(server);
  const created = await o.client.post(`${o.base}/keep/me`, { title: "Keep me", body: "precious\n" });
  const id = created.body.page_id as string;
  await settled(o);
  const abs = join(o.dir, "keep/me.md");
  const text = readFileSync(abs, "utf8");
  const bus = recordBus(server, o.wsId);
  rmSync(abs);
  await until("the soft delete", () => pageRows(server, o.wsId).find((r) => r.id === id && r.deleted_at !== null));
  expect((await o.client.get(`${o.base}/keep/me`)).status).toBe(404);
  // Back as it was (from a backup, an undo in the editor): same id, live again.
  mkdirSync(join(o.dir, "keep"), { recursive: true });
  writeFileSync(abs, text);
  await until("the recovery", () => livePage(server, o.wsId, "keep/me.md"));
  const page = await o.client.get(`${o.base}/keep/me`);
  expect(page.body).toMatchObject({ page_id: id, content: "precious\n" });
  // Even without its id line, the same text at another path is found by its hash.
  writeFileSync(abs, text.replace(`id: ${id}\n`, ""));
  await settled(o);
  bus.stop();
  expect(livePage(server, o.wsId, "keep/me.md")!.id).toBe(id);
  expect(bus.events.map((e) => e.type)).toEqual(["page-deleted", "page-created"]);
  const rows = activityRows(server, o.wsId).filter((a) => a.page_id === id && a.actor_name === "system");
  expect(rows.map((a) => [a.action, JSON.parse(a.details).restored ?? false])).toEqual([
    ["page_deleted", false],
    ["page_created", true],
  ]);
});

test("a 40-file drop is one reconcile and one bulk-sync event, with an activity row per page", async () => {
  const o = await owner(server);
  await settled(o);
  const before = passes();
  const bus = recordBus(server, o.wsId);
  mkdirSync(join(o.dir, "drop"));
  const paths = Array.from({ length: 40 }, (_, i) => `drop/file-${String(i).padStart(2, "0")}.md`);
  for (const p of paths) writeFileSync(join(o.dir, p), `# ${p}\n\nDropped.\n`);
  await until("the bulk-sync", () => bus.events.find((e) => e.type === "bulk-sync"));
  await settled(o);
  bus.stop();
  expect(bus.events).toEqual([
    { type: "bulk-sync", workspace_id: o.wsId, payload: { workspace_id: o.wsId, changed_count: 40, paths, actor: SYSTEM } },
  ]);
  expect(passes() - before).toBe(1);
  expect(pageRows(server, o.wsId).filter((r) => r.path.startsWith("drop/") && r.deleted_at === null)).toHaveLength(40);
  expect(activityRows(server, o.wsId).filter((a) => a.page_path?.startsWith("drop/") && a.action === "page_created")).toHaveLength(40);
  // Every file got its id, and those 40 writes of the reconciler did not start another pass.
  for (const p of paths) expect(readFileSync(join(o.dir, p), "utf8")).toStartWith("---\nid: ");
});

test("the ledger's own writes never start a reconcile: API saves, moves, deletes and reorders give exactly their own events", async () => {
  const o = await owner(server);
  await settled(o);
  const before = passes();
  const bus = recordBus(server, o.wsId);
  let hash = "";
  const a = await o.client.post(`${o.base}/own/a`, { title: "A", body: "links to [[own/b]]\n" });
  const b = await o.client.post(`${o.base}/own/b`, { title: "B", body: "b\n" });
  hash = b.body.content_hash;
  for (let i = 0; i < 5; i++) {
    const r = await o.client.put(`${o.base}/own/b`, { body: `b ${i}\n`, lastKnownHash: hash });
    expect(r.status).toBe(200);
    hash = r.body.content_hash;
  }
  expect((await o.client.patch(`${o.base}/own/b`, { new_path: "elsewhere/deep/b.md" })).status).toBe(200);
  expect((await o.client.delete(`${o.base}/elsewhere/deep/b`)).status).toBe(204);
  const reorder = await o.client.post(`${o.base}/reorder`, { parent_path: "own", order: [{ id: a.body.page_id, sort_order: 3 }] });
  expect(reorder.status).toBe(204);
  await settled(o, 600);
  bus.stop();
  expect(passes() - before).toBe(0);
  expect(bus.events.map((e) => [e.type, e.payload.path ?? e.payload.new_path, (e.payload.actor as { name: string }).name])).toEqual([
    ["page-created", "own/a.md", o.name],
    ["page-created", "own/b.md", o.name],
    ...Array.from({ length: 5 }, () => ["page-updated", "own/b.md", o.name]),
    ["page-moved", "elsewhere/deep/b.md", o.name],
    ["page-updated", "own/a.md", o.name], // its link was rewritten
    ["page-deleted", "elsewhere/deep/b.md", o.name],
    ["page-updated", "own/a.md", o.name], // the reorder
  ]);
  expect(bus.events.at(-1)!.payload).toMatchObject({ reason: "reorder" });
  expect(activityRows(server, o.wsId).some((a) => a.actor_name === "system")).toBe(false);
});

test("an editor's change right after an API save of the same file is not mistaken for the ledger's own", async () => {
  const o = await owner(server);
  const created = await o.client.post(`${o.base}/race`, { title: "Race", body: "api\n" });
  const abs = join(o.dir, "race.md");
  writeFileSync(abs, readFileSync(abs, "utf8").replace("api\n", "editor\n"));
  await until("the editor's text", () => livePage(server, o.wsId, "race.md")!.content_hash !== created.body.content_hash);
  expect((await o.client.get(`${o.base}/race`)).body.content).toBe("editor\n");
});

test("temporary files, dot folders and assets/ start no pass", async () => {
  const o = await owner(server);
  await settled(o);
  const before = passes();
  put(o, ".hidden/secret.md", "# no\n");
  put(o, ".git/COMMIT_EDITMSG", "x");
  put(o, "assets/diagram.png", "png");
  put(o, "assets/readme.md", "# uploads\n");
  put(o, "page.md~", "backup");
  put(o, ".page.md.swp", "swap");
  put(o, "notes.txt", "text");
  await settled(o, 600);
  expect(passes() - before).toBe(0);
  expect(pageRows(server, o.wsId).some((r) => r.path.includes("secret") || r.path.startsWith("assets"))).toBe(false);
});

test("reordering several pages is one bulk-sync event (clients refresh the tree)", async () => {
  const o = await owner(server);
  const x = await o.client.post(`${o.base}/lvl/x`, { title: "X" });
  const y = await o.client.post(`${o.base}/lvl/y`, { title: "Y" });
  const bus = recordBus(server, o.wsId);
  const r = await o.client.post(`${o.base}/reorder`, {
    parent_path: "lvl",
    order: [
      { id: y.body.page_id, sort_order: 0 },
      { id: x.body.page_id, sort_order: 1 },
    ],
  });
  expect(r.status).toBe(204);
  // The same order again changes nothing and says nothing.
  await o.client.post(`${o.base}/reorder`, { parent_path: "lvl", order: [{ id: y.body.page_id, sort_order: 0 }] });
  bus.stop();
  expect(bus.events).toEqual([
    {
      type: "bulk-sync",
      workspace_id: o.wsId,
      payload: { workspace_id: o.wsId, changed_count: 2, paths: ["lvl/y.md", "lvl/x.md"], reason: "reorder", actor: { id: o.id, name: o.name } },
    },
  ]);
});

test("an upload is reported to committed-write listeners (so git commits it)", async () => {
  const o = await owner(server);
  const seen: CommittedWrite[] = [];
  const off = server.services.ledger.onCommitted((w) => seen.push(w));
  const form = new FormData();
  form.append("file", new File(["plain notes\n"], "Notes.txt", { type: "text/plain" }));
  const r = await o.client.request("POST", `${o.base}/uploads`, { body: form });
  off();
  expect(r.status).toBe(201);
  expect(seen).toEqual([
    {
      workspace_id: o.wsId,
      kind: "upload",
      path: `assets/${r.body.filename}`,
      files: [`assets/${r.body.filename}`],
      // The exact bytes written, so the commit is made from them and not from a later read.
      contents: [{ path: `assets/${r.body.filename}`, data: new TextEncoder().encode("plain notes\n") }],
      actor: { id: o.id, name: o.name },
      origin: "web editor",
    },
  ]);
});

test("a workspace created through the API has its folder at once and takes a page; soft delete leaves the files", async () => {
  const o = await owner(server);
  const created = await o.client.post("/api/v1/workspaces", { name: "Fresh", slug: `fresh-${Date.now()}` });
  expect(created.status).toBe(201);
  const dir = join(server.dataDir, "workspaces", created.body.id);
  expect(existsSync(dir)).toBe(true);
  expect(server.services.watcher!.isWatching(created.body.id)).toBe(true);
  const page = await o.client.post(`/api/v1/content/${created.body.slug}/first`, { title: "First" });
  expect(page.status).toBe(201);
  // The folder is watched from the start: a file put there is picked up.
  writeFileSync(join(dir, "second.md"), "# Second\n");
  await until("the second page", () => livePage(server, created.body.id, "second.md"));

  expect((await o.client.delete(`/api/v1/workspaces/${created.body.id}`)).status).toBe(204);
  expect(server.services.watcher!.isWatching(created.body.id)).toBe(false);
  expect(readFileSync(join(dir, "first.md"), "utf8")).toContain("title: First");
  expect(existsSync(join(dir, "second.md"))).toBe(true);
  // No longer watched: nothing more is reconciled into the deleted workspace.
  const before = passes();
  writeFileSync(join(dir, "third.md"), "# Third\n");
  await Bun.sleep(600);
  expect(passes()).toBe(before);
  expect(livePage(server, created.body.id, "third.md")).toBeNull();
});

test("QUIRE_WATCH_FILES=false runs no watcher; a bad value is a configuration error", async () => {
  expect(loadConfig({ ...TEST_ENV }).watchFiles).toBe(true);
  expect(loadConfig({ ...TEST_ENV, QUIRE_WATCH_FILES: "false" }).watchFiles).toBe(false);
  expect(() => loadConfig({ ...TEST_ENV, QUIRE_WATCH_FILES: "sometimes" })).toThrow(ConfigError);
  const quiet = await startTestServer({ QUIRE_WATCH_FILES: "false" });
  try {
    expect(quiet.services.watcher).toBeNull();
    const o = await owner(quiet);
    writeFileSync(join(o.dir, "unseen.md"), "# Unseen\n");
    await Bun.sleep(600);
    expect(livePage(quiet, o.wsId, "unseen.md")).toBeNull();
    // An API-created workspace still gets its folder.
    const created = await o.client.post("/api/v1/workspaces", { name: "Quiet", slug: `quiet-${Date.now()}` });
    expect(existsSync(join(quiet.dataDir, "workspaces", created.body.id))).toBe(true);
  } finally {
    await quiet.close();
  }
});

test("a workspace folder missing at start is not recreated by the watcher: the safety stop reports it, nothing is deleted", async () => {
  const dataDir = tempDir();
  let s = await startTestServer({}, { dataDir, keepDir: true });
  const o = await owner(s);
  await o.client.post(`${o.base}/precious`, { title: "Precious" });
  await s.close();
  renameSync(o.dir, `${o.dir}.unmounted`);
  s = await startTestServer({}, { dataDir });
  try {
    await until("the start-up pass", () => s.services.reconciler.lastResult(o.wsId));
    expect(s.services.watcher!.isWatching(o.wsId)).toBe(false);
    // (Git's start-up may give the workspace a fresh, empty work tree: then the stop says "no Markdown".)
    expect(s.services.reconciler.lastResult(o.wsId)).toMatchObject({
      aborted: true,
      problems: [{ kind: "safety_stop", message: expect.stringMatching(/missing|no Markdown/) }],
    });
    expect(livePage(s, o.wsId, "precious.md")).not.toBeNull();
  } finally {
    await s.close();
  }
});
