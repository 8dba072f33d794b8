import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { memberWithRole } from "../access/support.ts";
import type { TestUser } from "../helpers/factories.ts";
import { fileOf, owner, type Owner } from "./support.ts";

let server: TestServer;
let o: Owner;
const people: Record<string, TestUser> = {};
beforeAll(async () => {
  server = await startTestServer();
  o = await owner(server);
  for (const role of ["viewer", "commenter", "editor", "admin"] as const) people[role] = await memberWithRole(server, o, o.wsId, role);
  people.stranger = await owner(server);
});
afterAll(() => server.close());

async function attempt(user: TestUser, op: string, n: number): Promise<number> {
  const c = user.client;
  const base = o.base;
  switch (op) {
    case "read":
      return (await c.get(`${base}/welcome`)).status;
    case "tree":
      return (await c.get(`${base}/tree`)).status;
    case "create":
      return (await c.post(`${base}/made/${user.id}-${n}`, { title: "Made" })).status;
    case "edit": {
      const page = await o.client.get(`${base}/components`);
      return (await c.put(`${base}/components`, { body: page.body.content + ".", lastKnownHash: page.body.content_hash })).status;
    }
    case "move": {
      await o.client.post(`${base}/movable/${user.id}-${n}`, { title: "Movable" });
      return (await c.patch(`${base}/movable/${user.id}-${n}`, { new_path: `moved/${user.id}-${n}` })).status;
    }
    case "delete": {
      await o.client.post(`${base}/deletable/${user.id}-${n}`, { title: "Deletable" });
      return (await c.delete(`${base}/deletable/${user.id}-${n}`)).status;
    }
    case "reorder": {
      const tree = await o.client.get(`${base}/tree`);
      return (await c.post(`${base}/reorder`, { parent_path: "", order: [{ id: tree.body.items[0].page_id, sort_order: 0 }] })).status;
    }
    case "upload": {
      const form = new FormData();
      form.append("file", new File(["plain text"], "a.txt"));
      return (await c.request("POST", `${base}/uploads`, { body: form })).status;
    }
  }
  throw new Error(op);
}

const EXPECTED: Record<string, Record<string, number>> = {
  //          read tree create edit move delete reorder upload
  viewer: { read: 200, tree: 200, create: 403, edit: 403, move: 403, delete: 403, reorder: 403, upload: 403 },
  commenter: { read: 200, tree: 200, create: 403, edit: 403, move: 403, delete: 403, reorder: 403, upload: 403 },
  // A move puts a page where none was, so it follows the create flag (on by default).
  editor: { read: 200, tree: 200, create: 201, edit: 200, move: 200, delete: 403, reorder: 204, upload: 201 },
  admin: { read: 200, tree: 200, create: 201, edit: 200, move: 200, delete: 204, reorder: 204, upload: 201 },
  stranger: { read: 404, tree: 404, create: 404, edit: 404, move: 404, delete: 404, reorder: 404, upload: 404 },
};

test("role matrix with the workspace defaults (editors create and move, only admins delete)", async () => {
  const seen: Record<string, Record<string, number>> = {};
  let n = 0;
  for (const [role, ops] of Object.entries(EXPECTED)) {
    seen[role] = {};
    for (const op of Object.keys(ops)) seen[role]![op] = await attempt(people[role]!, op, n++);
  }
  expect(seen).toEqual(EXPECTED);
  // The owner (Super Admin) can do everything too.
  expect(await attempt(o, "delete", n++)).toBe(204);
});

test("the workspace's editor flags decide whether editors create and delete", async () => {
  const flip = async (settings: Record<string, boolean>) => {
    const r = await o.client.put(`/api/v1/workspaces/${o.wsId}/admin/settings`, settings);
    expect(r.status).toBe(200);
  };
  await flip({ editor_can_create_pages: false, editor_can_delete_pages: true });
  expect(await attempt(people.editor!, "create", 100)).toBe(403);
  expect(await attempt(people.editor!, "delete", 101)).toBe(204);
  expect(await attempt(people.admin!, "create", 102)).toBe(201);
  // PUT on a missing page creates it, so it needs the create right as well.
  const put = await people.editor!.client.put(`${o.base}/put-new`, { body: "x", frontmatter: { title: "T" } });
  expect(put.status).toBe(403);
  expect(fileOf(o, "put-new.md")).toBeNull();
  await flip({ editor_can_create_pages: true, editor_can_delete_pages: false });
  expect(await attempt(people.editor!, "create", 103)).toBe(201);
  expect(await attempt(people.editor!, "delete", 104)).toBe(403);
});

test("editors move pages only when they may create pages (the delete flag does not matter); a refused move changes nothing", async () => {
  const flip = async (settings: Record<string, boolean>) => {
    expect((await o.client.put(`/api/v1/workspaces/${o.wsId}/admin/settings`, settings)).status).toBe(200);
  };
  const cases: Array<[boolean, boolean, number]> = [
    [false, false, 403],
    [true, false, 200],
    [false, true, 403],
    [true, true, 200],
  ];
  let n = 200;
  for (const [create, del, status] of cases) {
    await flip({ editor_can_create_pages: create, editor_can_delete_pages: del });
    const from = `movable/flags-${n}`;
    await o.client.post(`${o.base}/${from}`, { title: "Movable" });
    const r = await people.editor!.client.patch(`${o.base}/${from}`, { new_path: `moved/flags-${n}` });
    expect([create, del, r.status]).toEqual([create, del, status]);
    if (status === 403) {
      expect(r.body.error).toBe("FORBIDDEN");
      expect(fileOf(o, `${from}.md`)).not.toBeNull();
      expect(fileOf(o, `moved/flags-${n}.md`)).toBeNull();
      expect(server.services.db.query("SELECT path FROM pages WHERE workspace_id = ? AND path = ?").get(o.wsId, `${from}.md`)).toEqual({ path: `${from}.md` });
    } else {
      expect(fileOf(o, `${from}.md`)).toBeNull();
      expect(fileOf(o, `moved/flags-${n}.md`)).not.toBeNull();
    }
    // The POST alias follows the same rule.
    const alias = await people.editor!.client.post(`${o.base}/move`, { path: status === 403 ? from : `moved/flags-${n}`, new_path: `alias/flags-${n}` });
    expect(alias.status).toBe(status);
    n++;
  }
  // Admins move whatever the flags say.
  await flip({ editor_can_create_pages: false, editor_can_delete_pages: false });
  expect(await attempt(people.admin!, "move", n)).toBe(200);
  await flip({ editor_can_create_pages: true, editor_can_delete_pages: false });
});

test("a stranger gets 404 before any validation, so a workspace's existence does not leak", async () => {
  const s = people.stranger!;
  expect((await s.client.post(`${o.base}/x`, {})).status).toBe(404);
  expect((await s.client.post(`${o.base}/reorder`, { nonsense: true })).status).toBe(404);
  expect((await s.client.post(`${o.base}/move`, { nonsense: true })).status).toBe(404);
  expect((await s.client.get(`${o.base}/.git/config`)).status).toBe(404);
});
