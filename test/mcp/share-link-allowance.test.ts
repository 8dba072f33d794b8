import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { Client } from "../helpers/client.ts";
import { memberWithRole } from "../access/support.ts";
import { createKey, httpClient, ok, refused, type McpClient } from "./fixture.ts";

/**
 * The link:anyone allowance through a real MCP client (docs/decisions/restricted-folders.md, "Share
 * links"): quire_set_access takes it as one more entry of the same schema as the REST endpoint,
 * quire_get_access reads it back, a page share link opens for anyone while it is there, and an
 * editor who manages access cannot add or remove it.
 */
let server: TestServer;
let owner: TestUser;
let ana: TestUser;
let admin: McpClient;
let editor: McpClient;
let token: string;

const opened = async () => (await new Client(server.url).get(`/api/v1/share-links/${token}/page`)).status;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ana = await memberWithRole(server, owner, owner.workspaceId, "editor");
  expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/hr/salaries.md`, { title: "Salaries", body: "Bands." })).status).toBe(201);
  expect((await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { editors_manage_access: true })).status).toBe(200);
  const url = `${server.url}/mcp`;
  admin = await httpClient(url, (await createKey(owner, ["read", "write", "delete", "admin"])).key);
  editor = await httpClient(url, (await createKey(ana, ["read", "write", "admin"], { workspace_id: owner.workspaceId })).key);
  await ok(admin, "quire_set_access", { workspace: owner.workspaceSlug, path: "hr/", entries: [{ who: ana.email, level: "edit" }] });
  token = (await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/share-links`, { role: "viewer", path: "hr/salaries.md" })).body.token;
});
afterAll(async () => {
  for (const c of [admin, editor]) await c?.close();
  await server.close();
});

test("an admin allows link:anyone with quire_set_access and reads it back; the link opens, and stops when it is taken away", async () => {
  expect(await opened()).toBe(404);
  const entries = [{ who: ana.email.toLowerCase(), level: "edit" }, { who: "link:anyone", level: "view" }];
  const set = await ok(admin, "quire_set_access", { workspace: owner.workspaceSlug, path: "hr/", entries });
  expect(set).toMatchObject({ path: "hr/", restricted: true, entries });
  expect((await ok(admin, "quire_get_access", { workspace: owner.workspaceSlug })).restricted["hr/"]).toEqual(entries);
  expect(await opened()).toBe(200);
  expect(await refused(admin, "quire_set_access", { workspace: owner.workspaceSlug, path: "hr/", entries: [entries[0], { who: "link:anyone", level: "edit" }] })).toContain(
    "link:anyone allows view or comment at most",
  );
  expect(await opened()).toBe(200);
  await ok(admin, "quire_set_access", { workspace: owner.workspaceSlug, path: "hr/", entries: [entries[0]] });
  expect(await opened()).toBe(404);
});

test("an editor managing access through MCP cannot add the allowance; the rules stay", async () => {
  const before = await ok(admin, "quire_get_access", { workspace: owner.workspaceSlug });
  const why = await refused(editor, "quire_set_access", {
    workspace: owner.workspaceSlug,
    path: "hr/",
    entries: [{ who: ana.email, level: "edit" }, { who: "link:anyone", level: "view" }],
  });
  expect(why).toContain("Only an admin may allow or remove link:anyone");
  expect(await ok(admin, "quire_get_access", { workspace: owner.workspaceSlug })).toEqual(before);
  expect(await opened()).toBe(404);
});

test("the admin's tools/list stays within its budget", async () => {
  const size = JSON.stringify((await admin.listTools()).tools).length / 4;
  console.log(`admin tools/list: ~${Math.round(size)} tokens`);
  expect(size).toBeLessThan(8_500);
});
