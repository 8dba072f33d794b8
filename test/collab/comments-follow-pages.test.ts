import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { addMember, starterWorkspace } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let commenter: TestUser;
let ws: { id: string; slug: string };

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url, { name: "Olivia Owner" });
  commenter = await registerUser(server.url, { name: "Carl Commenter" });
  ws = starterWorkspace(server, owner.id);
  addMember(server, ws.id, commenter.id, "commenter");
});
afterAll(() => server.close());

const content = (path: string) => `/api/v1/content/${ws.slug}/${path}`;
const comment = (body: unknown) => commenter.client.post(`/api/v1/workspaces/${ws.id}/comments`, body);
const listFor = async (page: string) => (await owner.client.get(`/api/v1/workspaces/${ws.id}/comments?page=${page}`)).body;
const count = (table: string) => server.services.db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n;
const storedPageIds = (ids: string[]) =>
  server.services.db
    .query<{ id: string; page_id: string | null }, string[]>(`SELECT id, page_id FROM comments WHERE id IN (${ids.map(() => "?").join(",")}) ORDER BY id`)
    .all(...ids);

test("comments follow their page when it moves: listed under the new path, with it as page_path, none left at the old one", async () => {
  const page = await owner.client.post(content("c/a.md"), { title: "A" });
  const root = await comment({ page_path: "c/a.md", body: "On A" });
  const reply = await comment({ parent_id: root.body.id, body: "Agreed" });
  expect([root.status, reply.status]).toEqual([201, 201]);

  const moved = await owner.client.patch(content("c/a.md"), { new_path: "c/b.md" });
  expect(moved.status).toBe(200);

  const atNew = await listFor("c/b.md");
  expect(atNew.items.map((c: any) => [c.id, c.page_path, c.page_id])).toEqual([
    [root.body.id, "c/b.md", page.body.page_id],
    [reply.body.id, "c/b.md", page.body.page_id],
  ]);
  expect((await listFor("c/a.md")).items).toEqual([]);
  expect((await commenter.client.get(`/api/v1/comments/${root.body.id}`)).body.page_path).toBe("c/b.md");
  // A reply now belongs to the page at its new path; naming the old one is refused.
  expect((await comment({ parent_id: root.body.id, page_path: "c/b.md", body: "Still here" })).status).toBe(201);
  const stale = await comment({ parent_id: root.body.id, page_path: "c/a.md", body: "Old path" });
  expect(stale.status).toBe(400);
  expect(stale.body.details.field).toBe("page_path");
  // The rows are tied to the page by id.
  expect(storedPageIds([root.body.id, reply.body.id]).map((r) => r.page_id)).toEqual([page.body.page_id, page.body.page_id]);
});

test("a page deleted and created again at the same path does not inherit the old page's comments", async () => {
  const first = await owner.client.post(content("d/x.md"), { title: "First" });
  const old = await comment({ page_path: "d/x.md", body: "About the first page" });
  expect(old.status).toBe(201);
  expect((await owner.client.delete(content("d/x.md"))).status).toBe(204);
  expect((await listFor("d/x.md")).items).toEqual([]);

  const second = await owner.client.post(content("d/x.md"), { title: "Second" });
  expect(second.status).toBe(201);
  expect(second.body.page_id).not.toBe(first.body.page_id);
  expect((await listFor("d/x.md")).items).toEqual([]);
  const fresh = await comment({ page_path: "d/x.md", body: "About the second page" });
  expect(fresh.body.page_id).toBe(second.body.page_id);
  expect((await listFor("d/x.md")).items.map((c: any) => c.id)).toEqual([fresh.body.id]);
  // The old thread stays with the deleted page: kept in the database, but no replies onto the new page.
  const reply = await comment({ parent_id: old.body.id, body: "Reply to a thread whose page is gone" });
  expect(reply.status).toBe(404);
  expect(reply.body.error).toBe("NOT_FOUND");
  expect(storedPageIds([old.body.id])).toEqual([{ id: old.body.id, page_id: first.body.page_id }]);
});

test("commenting on a page that does not exist is 404 in the error shape and writes nothing", async () => {
  const comments = count("comments");
  const activity = count("activity");
  const r = await comment({ page_path: "nope/none.md", body: "Nobody home" });
  expect(r.status).toBe(404);
  expect(r.body).toMatchObject({ error: "NOT_FOUND", message: expect.any(String) });
  // A deleted page counts as missing too.
  await owner.client.post(content("gone.md"), { title: "Gone" });
  expect((await owner.client.delete(content("gone.md"))).status).toBe(204);
  expect((await comment({ page_path: "gone.md", body: "Too late" })).status).toBe(404);
  expect(count("comments")).toBe(comments);
  expect(count("activity")).toBe(activity + 2); // the page's own create and delete, no comment_added
});

test("comments also follow a page renamed outside Quire (the file keeps its id, reconciliation moves the record)", async () => {
  const page = await owner.client.post(content("disk/before.md"), { title: "On disk" });
  const c = await comment({ page_path: "disk/before.md", body: "Rename me" });
  const dir = join(server.dataDir, "workspaces", ws.id);
  mkdirSync(join(dir, "elsewhere"), { recursive: true });
  renameSync(join(dir, "disk/before.md"), join(dir, "elsewhere/after.md"));
  await server.services.reconciler.reconcile(ws.id);
  expect((await owner.client.get(content("elsewhere/after.md"))).body.page_id).toBe(page.body.page_id);
  expect((await listFor("elsewhere/after.md")).items.map((x: any) => [x.id, x.page_path])).toEqual([[c.body.id, "elsewhere/after.md"]]);
  expect((await listFor("disk/before.md")).items).toEqual([]);
});
