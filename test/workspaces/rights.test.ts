/**
 * Each workspace object carries the caller's `rights`, computed by the server's one rule
 * (src/workspaces/rights.ts): the web app shows what these say and re-derives nothing. One case per
 * role, and the editor's with each of the workspace's two switches; for the switches, the rights
 * sent agree with what the content API then allows.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { memberWithRole } from "../access/support.ts";
import type { TestUser } from "../helpers/factories.ts";
import { owner, type Owner } from "../content/support.ts";

let server: TestServer;
let o: Owner;
const people: Record<string, TestUser> = {};
beforeAll(async () => {
  server = await startTestServer();
  o = await owner(server);
  for (const role of ["viewer", "commenter", "editor", "admin"] as const) people[role] = await memberWithRole(server, o, o.wsId, role);
});
afterAll(() => server.close());

const none = { read: false, comment: false, edit: false, create: false, delete: false, move: false, admin: false, manage_access: false };
const all = { read: true, comment: true, edit: true, create: true, delete: true, move: true, admin: true, manage_access: true };

async function rightsOf(user: TestUser) {
  const one = await user.client.get(`/api/v1/workspaces/${o.wsId}`);
  expect(one.status).toBe(200);
  const list = await user.client.get("/api/v1/workspaces");
  const listed = list.body.items.find((w: { id: string }) => w.id === o.wsId);
  // The list and the single workspace say the same.
  expect(listed.rights).toEqual(one.body.rights);
  return one.body.rights;
}

const flip = async (settings: Record<string, boolean>) => {
  expect((await o.client.put(`/api/v1/workspaces/${o.wsId}/admin/settings`, settings)).status).toBe(200);
};

test("a viewer reads", async () => {
  expect(await rightsOf(people.viewer!)).toEqual({ ...none, read: true });
});

test("a commenter reads and comments", async () => {
  expect(await rightsOf(people.commenter!)).toEqual({ ...none, read: true, comment: true });
});

test("an editor with the defaults edits, creates and moves, and does not delete", async () => {
  await flip({ editor_can_create_pages: true, editor_can_delete_pages: false });
  expect(await rightsOf(people.editor!)).toEqual({ ...all, delete: false, admin: false, manage_access: false });
});

test("editors manage access lists when editors_manage_access is on; viewers and commenters never", async () => {
  await flip({ editors_manage_access: true });
  expect((await rightsOf(people.editor!)).manage_access).toBe(true);
  expect((await rightsOf(people.commenter!)).manage_access).toBe(false);
  expect((await rightsOf(people.viewer!)).manage_access).toBe(false);
  await flip({ editors_manage_access: false });
  expect((await rightsOf(people.editor!)).manage_access).toBe(false);
});

test("an editor follows editor_can_create_pages and editor_can_delete_pages, as the content API does", async () => {
  const editor = people.editor!;
  let n = 0;
  for (const [create, del] of [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const) {
    await flip({ editor_can_create_pages: create, editor_can_delete_pages: del });
    const rights = await rightsOf(editor);
    expect(rights).toEqual({ read: true, comment: true, edit: true, create, delete: del, move: create, admin: false, manage_access: false });
    // What the rights say is what the content API does.
    const made = await editor.client.post(`${o.base}/rights/${create}-${del}-${n++}`, { title: "Made" });
    expect(made.status).toBe(create ? 201 : 403);
    await o.client.post(`${o.base}/doomed/${n}`, { title: "Doomed" });
    expect((await editor.client.delete(`${o.base}/doomed/${n}`)).status).toBe(del ? 204 : 403);
  }
  await flip({ editor_can_create_pages: true, editor_can_delete_pages: false });
});

test("an admin and the Super Admin do everything, whatever the editor switches say", async () => {
  await flip({ editor_can_create_pages: false, editor_can_delete_pages: false });
  expect(await rightsOf(people.admin!)).toEqual(all);
  expect(await rightsOf(o)).toEqual(all);
  await flip({ editor_can_create_pages: true, editor_can_delete_pages: false });
});
