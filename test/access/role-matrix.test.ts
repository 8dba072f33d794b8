import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { memberWithRole } from "./support.ts";

/**
 * Every workspace route, tried by each role below admin (403) and by a user of another
 * organization holding the other organization's ids (404, as if nothing existed). A refused
 * request changes nothing in the database.
 */
let server: TestServer;
let owner: TestUser;
let ws: string;
let slug: string;
let target: TestUser;
let invitationId: string;
let linkId: string;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = owner.workspaceId;
  slug = owner.workspaceSlug;
  target = await memberWithRole(server, owner, ws, "viewer");
  invitationId = (await owner.client.post(`/api/v1/workspaces/${ws}/invitations`, { email: "pending@example.test", role: "editor" })).body.id;
  linkId = (await owner.client.post(`/api/v1/workspaces/${ws}/share-links`, { role: "viewer" })).body.id;
});
afterAll(() => server.close());

type Call = [method: string, path: string, body?: unknown];
const adminRoutes = (id: string): Call[] => [
  ["GET", `/api/v1/workspaces/${id}/admin/members`],
  ["PUT", `/api/v1/workspaces/${id}/admin/members/${target.id}/role`, { role: "editor" }],
  ["DELETE", `/api/v1/workspaces/${id}/admin/members/${target.id}`],
  ["GET", `/api/v1/workspaces/${id}/admin/settings`],
  ["PUT", `/api/v1/workspaces/${id}/admin/settings`, { theme: "dark" }],
  ["POST", `/api/v1/workspaces/${id}/admin/settings/webhook-secret/regenerate`],
  ["GET", `/api/v1/workspaces/${id}/invitations`],
  ["POST", `/api/v1/workspaces/${id}/invitations`, { email: "someone@example.test", role: "viewer" }],
  ["DELETE", `/api/v1/workspaces/${id}/invitations/${invitationId}`],
  ["GET", `/api/v1/workspaces/${id}/share-links`],
  ["POST", `/api/v1/workspaces/${id}/share-links`, { role: "editor" }],
  ["DELETE", `/api/v1/workspaces/${id}/share-links/${linkId}`],
  ["DELETE", `/api/v1/workspaces/${id}`],
];
const allRoutes = (id: string): Call[] => [["GET", `/api/v1/workspaces/${id}`], ...adminRoutes(id)];

async function expectAll(user: TestUser, calls: Call[], status: number) {
  const before = accessTables();
  for (const [method, path, body] of calls) {
    const r = await user.client.request(method, path, body === undefined ? {} : { json: body });
    expect({ method, path, status: r.status }).toEqual({ method, path, status });
    expect(r.body.error).toBe(status === 403 ? "FORBIDDEN" : "NOT_FOUND");
    expect(r.body.request_id).toBeString();
  }
  expect(accessTables()).toEqual(before);
}

/** Every row that decides who may do what (API keys' last_used_at aside, which a refused call may touch). */
const accessTables = () =>
  ["users", "org_members", "workspaces", "workspace_members", "invitations", "share_links", "email_outbox"].map((t) =>
    server.services.db.query(`SELECT * FROM ${t} ORDER BY rowid`).all(),
  );

describe("roles below admin", () => {
  for (const role of ["viewer", "commenter", "editor"] as const) {
    test(`${role === "editor" ? "an" : "a"} ${role} reads the workspace but every admin route is 403`, async () => {
      const u = await memberWithRole(server, owner, ws, role);
      const read = await u.client.get(`/api/v1/workspaces/${ws}`);
      expect(read.status).toBe(200);
      expect(read.body.role).toBe(role);
      await expectAll(u, adminRoutes(ws), 403);
      await expectAll(u, adminRoutes(slug), 403);
    });
  }

  test("an admin can do all of it except deleting the workspace", async () => {
    const admin = await memberWithRole(server, owner, ws, "admin");
    const del = await admin.client.delete(`/api/v1/workspaces/${ws}`);
    expect(del.status).toBe(403);
    expect((await admin.client.get(`/api/v1/workspaces/${ws}/admin/members`)).status).toBe(200);
    expect((await admin.client.get(`/api/v1/workspaces/${ws}/admin/settings`)).status).toBe(200);
    expect((await admin.client.get(`/api/v1/workspaces/${ws}/invitations`)).status).toBe(200);
    expect((await admin.client.get(`/api/v1/workspaces/${ws}/share-links`)).status).toBe(200);
  });
});

describe("another organization", () => {
  test("every route with the other organization's ids is 404", async () => {
    const stranger = await registerUser(server.url);
    await expectAll(stranger, allRoutes(ws), 404);
    await expectAll(stranger, allRoutes(slug), 404);
    const list = await stranger.client.get("/api/v1/workspaces");
    expect(list.body.items.map((w: any) => w.id)).not.toContain(ws);
  });

  test("an admin of their own workspace cannot reach ours through their ids", async () => {
    const stranger = await registerUser(server.url);
    const theirs = stranger.workspaceId;
    const theirInvite = (await stranger.client.post(`/api/v1/workspaces/${theirs}/invitations`, { email: "x@example.test" })).body.id;
    const theirLink = (await stranger.client.post(`/api/v1/workspaces/${theirs}/share-links`, {})).body.id;
    // Their workspace id with our invitation / link / member ids, and the other way round.
    for (const [method, path] of [
      ["DELETE", `/api/v1/workspaces/${theirs}/invitations/${invitationId}`],
      ["DELETE", `/api/v1/workspaces/${theirs}/share-links/${linkId}`],
      ["PUT", `/api/v1/workspaces/${theirs}/admin/members/${target.id}/role`],
      ["DELETE", `/api/v1/workspaces/${theirs}/admin/members/${target.id}`],
      ["DELETE", `/api/v1/workspaces/${ws}/invitations/${theirInvite}`],
      ["DELETE", `/api/v1/workspaces/${ws}/share-links/${theirLink}`],
    ] as const) {
      const r = await stranger.client.request(method, path, method === "PUT" ? { json: { role: "admin" } } : {});
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
    }
    const inv = server.services.db.query<any, [string]>("SELECT status FROM invitations WHERE id = ?").get(invitationId);
    expect(inv.status).toBe("pending");
    const link = server.services.db.query<any, [string]>("SELECT revoked_at FROM share_links WHERE id = ?").get(linkId);
    expect(link.revoked_at).toBeNull();
  });

  test("an API key of another organization sees nothing either", async () => {
    const stranger = await registerUser(server.url);
    const key = (await stranger.client.post("/api/v1/api-keys", { name: "all", scopes: ["admin"] })).body.key;
    const keyed = stranger.client.withToken(key);
    await expectAll({ ...stranger, client: keyed }, allRoutes(ws), 404);
  });

  test("without a credential every route is 401", async () => {
    const anon = owner.client.withToken(undefined);
    for (const [method, path, body] of allRoutes(ws)) {
      const r = await anon.request(method, path, body === undefined ? {} : { json: body });
      expect({ path, status: r.status }).toEqual({ path, status: 401 });
    }
  });
});
