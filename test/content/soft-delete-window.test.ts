import { afterAll, beforeAll, expect, setSystemTime, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SOFT_DELETE_KEEP_MS } from "../../src/content/page-records.ts";
import { fileOf, owner, type Owner } from "./support.ts";

/**
 * Deleted pages stay recoverable for 24 hours (docs/architecture.md §5), then reconciliation forgets them.
 * Time moves with bun:test's setSystemTime, which sets the Date that src/core/clock.ts reads; the
 * reconciler is driven by hand (no file watcher) so each pass runs at the chosen moment.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ QUIRE_WATCH_FILES: "false" });
});
afterAll(() => {
  setSystemTime();
  server.close();
});

interface Row {
  id: string;
  path: string;
  created_at: string;
  deleted_at: string | null;
}
const row = (id: string) => server.services.db.query<Row, [string]>("SELECT id, path, created_at, deleted_at FROM pages WHERE id = ?").get(id);

/** Creates a page, deletes it through the API and returns its id, file text and the deletion time. */
async function deletedPage(o: Owner, path: string) {
  const created = await o.client.post(`${o.base}/${path}`, { title: "Gone for a while", body: "Still wanted.\n" });
  expect(created.status).toBe(201);
  const text = fileOf(o, `${path}.md`)!;
  expect((await o.client.delete(`${o.base}/${path}`)).status).toBe(204);
  const deleted = row(created.body.page_id)!;
  expect(deleted.deleted_at).not.toBeNull();
  return { id: created.body.page_id as string, text, created: deleted.created_at, deletedAt: Date.parse(deleted.deleted_at!) };
}

/** Puts a deleted page's file back where it was (its emptied folder was removed with it). */
function putBack(o: Owner, path: string, text: string): void {
  mkdirSync(dirname(join(o.dir, path)), { recursive: true });
  writeFileSync(join(o.dir, path), text);
}

/** Runs `fn` with the clock set to `at` (ms), then gives the real clock back. */
async function at<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  setSystemTime(new Date(ms));
  try {
    return await fn();
  } finally {
    setSystemTime();
  }
}

test("within 24 hours a deleted page's record is kept, and its file put back recovers that same record", async () => {
  const o = await owner(server);
  const page = await deletedPage(o, "window/inside");
  const later = page.deletedAt + SOFT_DELETE_KEEP_MS - 60_000; // 23 h 59 min after the delete
  const [first, second] = await at(later, async () => {
    const first = await server.services.reconciler.reconcile(o.wsId);
    const kept = row(page.id);
    putBack(o, "window/inside.md", page.text);
    const second = await server.services.reconciler.reconcile(o.wsId);
    return [{ result: first, kept }, second] as const;
  });
  expect(first.kept).toMatchObject({ id: page.id, deleted_at: new Date(page.deletedAt).toISOString() });
  expect(second).toMatchObject({ inserted: 0, recovered: 1, aborted: false });
  expect(row(page.id)).toEqual({ id: page.id, path: "window/inside.md", created_at: page.created, deleted_at: null });
  expect(fileOf(o, "window/inside.md")).toBe(page.text);
  const back = await o.client.get(`${o.base}/window/inside`);
  expect(back.status).toBe(200);
  expect(back.body).toMatchObject({ page_id: page.id, content: "Still wanted.\n", created_at: page.created });
});

test("after more than 24 hours the record is purged; the same file put back is a new page", async () => {
  const o = await owner(server);
  const page = await deletedPage(o, "window/outside");
  const later = page.deletedAt + SOFT_DELETE_KEEP_MS + 60_000; // 24 h 1 min after the delete
  const { purged, result } = await at(later, async () => {
    await server.services.reconciler.reconcile(o.wsId);
    const purged = row(page.id);
    putBack(o, "window/outside.md", page.text);
    return { purged, result: await server.services.reconciler.reconcile(o.wsId) };
  });
  expect(purged).toBeNull();
  expect(result).toMatchObject({ inserted: 1, recovered: 0, aborted: false });
  // The file still names its id, so the new record takes it, but nothing of the old one survives.
  const fresh = row(page.id)!;
  expect(fresh).toMatchObject({ path: "window/outside.md", deleted_at: null });
  expect(fresh.created_at).toBe(new Date(later).toISOString());
  expect(fresh.created_at).not.toBe(page.created);
});

test("the purge removes only records deleted more than 24 hours ago, not live pages or newer deletions", async () => {
  const o = await owner(server);
  const old = await deletedPage(o, "window/old");
  const live = await o.client.post(`${o.base}/window/live`, { title: "Live" });
  await Bun.sleep(5); // deletion times are in milliseconds: the second one is strictly later
  const recent = await deletedPage(o, "window/recent");
  expect(recent.deletedAt).toBeGreaterThan(old.deletedAt + 1);
  // 24 h after the first deletion: only it has passed the window.
  await at(old.deletedAt + SOFT_DELETE_KEEP_MS + 1, () => server.services.reconciler.reconcile(o.wsId));
  expect(row(old.id)).toBeNull();
  expect(row(live.body.page_id)).toMatchObject({ deleted_at: null });
  expect(row(recent.id)).toMatchObject({ deleted_at: new Date(recent.deletedAt).toISOString() });
});
