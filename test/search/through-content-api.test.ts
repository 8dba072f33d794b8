import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { starterWorkspace } from "../collab/support.ts";
import { connect } from "../realtime/ws-client.ts";

let server: TestServer;
let owner: TestUser;
let ws: { id: string; slug: string };

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = starterWorkspace(server, owner.id);
});
afterAll(() => server.close());

const search = (q: string) => owner.client.get(`/api/v1/workspaces/${ws.id}/search?q=${encodeURIComponent(q)}`);

/** Polls until the predicate holds; the budget for a write to show up in search is one second. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await Bun.sleep(10);
  }
}

test("pages written through the content API are searchable within a second; updates, moves and deletes follow", async () => {
  const live = await connect(server, owner);
  const created = await owner.client.post(`/api/v1/content/${ws.slug}/ops/backup.md`, {
    title: "Backup procedure",
    body: "Nightly snapshots of the <database> are copied offsite.",
    tags: ["operations"],
  });
  expect(created.status).toBe(201);
  const ms = await within(1000, async () => (await search("snapshots")).body.items.some((i: any) => i.page_id === created.body.page_id));
  expect(ms).toBeLessThan(1000);
  const hit = (await search("snapshots")).body.items[0];
  expect(hit).toMatchObject({ page_id: created.body.page_id, path: "ops/backup.md", title: "Backup procedure" });
  expect(hit.snippet).toContain("<mark>snapshots</mark> of the &lt;database&gt;");
  const event = await live.next((f) => f.type === "page-created" && f.payload.path === "ops/backup.md");
  expect(event.payload).toMatchObject({ workspace_id: ws.id, path: "ops/backup.md" });

  const updated = await owner.client.put(`/api/v1/content/${ws.slug}/ops/backup.md`, {
    body: "Hourly replicas replace the old scheme.",
    lastKnownHash: created.body.content_hash,
  });
  expect(updated.status).toBe(200);
  await within(1000, async () => (await search("replicas")).body.items.length === 1);
  expect((await search("snapshots")).body.items.filter((i: any) => i.page_id === created.body.page_id)).toEqual([]);

  const moved = await owner.client.patch(`/api/v1/content/${ws.slug}/ops/backup.md`, { new_path: "runbooks/backup.md" });
  expect(moved.status).toBe(200);
  await within(1000, async () => (await search("replicas")).body.items[0]?.path === "runbooks/backup.md");
  expect((await search("replicas")).body.items).toHaveLength(1);

  const deleted = await owner.client.delete(`/api/v1/content/${ws.slug}/runbooks/backup.md`);
  expect(deleted.status).toBe(204);
  await within(1000, async () => (await search("replicas")).body.items.length === 0);
  live.close();
});

test("the starter pages of a new workspace are searchable", async () => {
  const tree = await owner.client.get(`/api/v1/content/${ws.slug}/tree`);
  expect(tree.status).toBe(200);
  const first = tree.body.items[0];
  const title: string = first.title ?? first.page?.title;
  expect(typeof title).toBe("string");
  const word = title.split(/\s+/).find((w) => w.length >= 4) ?? title;
  const r = await search(word);
  expect(r.body.items.length).toBeGreaterThan(0);
});
