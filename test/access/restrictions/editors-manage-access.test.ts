import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import type { ApiResponse } from "../../helpers/client.ts";
import { memberWithRole } from "../support.ts";
import { createKey, httpClient, ok, refused, type McpClient } from "../../mcp/fixture.ts";

/**
 * Editors managing access (docs/decisions/restricted-folders.md, "Editors managing access"): off by
 * default; when an admin turns `editors_manage_access` on, an editor with `edit` on a folder or page
 * reads and sets its access list, through REST and MCP, and nowhere else. Ana (editor) edits hr/;
 * Bob (editor) has no access there; Vic (viewer) views it; `board/` is for admins only.
 */
let server: TestServer;
let owner: TestUser;
let ana: TestUser;
let bob: TestUser;
let vic: TestUser;
let ws: string;
let slug: string;
const mcp: McpClient[] = [];

const access = () => `/api/v1/workspaces/${ws}/access`;
const settings = () => `/api/v1/workspaces/${ws}/admin/settings`;
const same = (r: ApiResponse) => ({ status: r.status, body: { ...r.body, request_id: undefined } });
const rules = () => server.services.db.query("SELECT path, entries FROM access_rules WHERE workspace_id = ? ORDER BY path").all(ws);
const rightsOf = async (u: TestUser) => (await u.client.get(`/api/v1/workspaces/${ws}`)).body.rights.manage_access;
const hrList = () => [{ who: ana.email, level: "edit" }, { who: vic.email, level: "view" }];

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = owner.workspaceId;
  slug = owner.workspaceSlug;
  ana = await memberWithRole(server, owner, ws, "editor");
  bob = await memberWithRole(server, owner, ws, "editor");
  vic = await memberWithRole(server, owner, ws, "viewer");
  for (const path of ["hr/salaries.md", "board/minutes.md", "guides/start.md"]) {
    expect((await owner.client.post(`/api/v1/content/${slug}/${path}`, { title: "T", body: "x" })).status).toBe(201);
  }
  expect((await owner.client.put(access(), { path: "hr/", entries: hrList() })).status).toBe(200);
  expect((await owner.client.put(access(), { path: "board/", entries: [{ who: "group:admins", level: "edit" }] })).status).toBe(200);
});
afterAll(async () => {
  for (const c of mcp) await c.close();
  await server.close();
});

describe("off (the default)", () => {
  test("only admins read and set access lists; the setting says off", async () => {
    expect((await owner.client.get(settings())).body.editors_manage_access).toBe(false);
    expect([await rightsOf(owner), await rightsOf(ana), await rightsOf(vic)]).toEqual([true, false, false]);
    const before = rules();
    for (const r of [
      await ana.client.get(access()),
      await ana.client.put(access(), { path: "hr/", entries: [] }),
      await ana.client.get(`${access()}/members?path=hr/`),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.message).toBe("This needs the admin role in the workspace");
    }
    expect(rules()).toEqual(before);
  });

  test("an editor cannot turn it on", async () => {
    expect((await ana.client.put(settings(), { editors_manage_access: true })).status).toBe(403);
    expect((await owner.client.put(settings(), { editors_manage_access: "yes" })).status).toBe(400);
    expect((await owner.client.get(settings())).body.editors_manage_access).toBe(false);
  });
});

describe("on", () => {
  beforeAll(async () => {
    const r = await owner.client.put(settings(), { editors_manage_access: true });
    expect(r.status).toBe(200);
    expect(r.body.editors_manage_access).toBe(true);
  });

  test("the workspace tells editors they may manage access; viewers still may not", async () => {
    expect([await rightsOf(owner), await rightsOf(ana), await rightsOf(bob), await rightsOf(vic)]).toEqual([true, true, true, false]);
    const r = await vic.client.put(access(), { path: "hr/", entries: [] });
    expect(r.status).toBe(403);
  });

  test("an editor lists the rules of paths they may edit, and no refusal of the file", async () => {
    const r = await ana.client.get(access());
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.restricted)).toEqual(["hr/"]);
    expect(r.body.refused).toBeNull();
    expect((await bob.client.get(access())).body.restricted).toEqual({});
    expect(Object.keys((await owner.client.get(access())).body.restricted)).toEqual(["board/", "hr/"]);
  });

  test("an editor with edit sets the list: it takes effect at once, and the audit names them", async () => {
    expect((await bob.client.get(`/api/v1/content/${slug}/hr/salaries.md`)).status).toBe(404);
    const set = await ana.client.put(access(), { path: "hr/", entries: [...hrList(), { who: bob.email, level: "view" }] });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ path: "hr/", restricted: true, level: "edit" });
    expect((await bob.client.get(`/api/v1/content/${slug}/hr/salaries.md`)).status).toBe(200);
    const feed = (await owner.client.get(`/api/v1/workspaces/${ws}/activity?limit=20`)).body.items;
    expect(feed.find((e: any) => e.action === "access_changed" && e.page_path === "hr/")?.actor).toEqual({ id: ana.id, name: ana.name });
    expect((await ana.client.get(`${access()}/members?path=hr/`)).status).toBe(200);
    expect((await ana.client.get(`${access()}/people`)).status).toBe(403);
    expect((await ana.client.put(access(), { path: "hr/", entries: hrList() })).status).toBe(200);
  });

  test("an editor may not take away their own edit access", async () => {
    const before = rules();
    const r = await ana.client.put(access(), { path: "hr/", entries: [{ who: vic.email, level: "view" }] });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("your own edit access");
    expect(rules()).toEqual(before);
  });

  test("a path hidden from the editor answers as one with no page; view access is not enough", async () => {
    const before = rules();
    const put = (u: TestUser, path: string) => u.client.put(access(), { path, entries: [{ who: "group:everyone", level: "edit" }] });
    const missing = same(await bob.client.put(access(), { path: "nothing-here/", entries: [] }));
    expect(missing.status).toBe(404);
    expect(same(await put(ana, "board/"))).toEqual(same(await put(ana, "nothing-here/")));
    expect(same(await put(ana, "board/minutes.md"))).toEqual(same(await put(ana, "board/nothing.md")));
    expect(same(await ana.client.get(`${access()}/members?path=board/`))).toEqual(same(await ana.client.get(`${access()}/members?path=nothing-here/`)));
    // Vic views hr/ but is a viewer; an editor given view only on a page cannot manage it either.
    expect((await owner.client.put(access(), { path: "guides/start.md", entries: [{ who: "group:editors", level: "view" }] })).status).toBe(200);
    const viewOnly = await put(ana, "guides/start.md");
    expect(viewOnly.status).toBe(403);
    expect(rules().find((r: any) => r.path === "guides/start.md")).toEqual({ path: "guides/start.md", entries: JSON.stringify([{ who: "group:editors", level: "view" }]) });
    expect((await owner.client.put(access(), { path: "guides/start.md", entries: [] })).status).toBe(200);
    expect(rules()).toEqual(before);
  });

  test("an editor restricts a folder nobody restricted yet, and the rule can only narrow", async () => {
    const r = await ana.client.put(access(), { path: "guides/", entries: [{ who: ana.email, level: "edit" }, { who: "group:everyone", level: "view" }] });
    expect(r.status).toBe(200);
    expect((await bob.client.put(`/api/v1/content/${slug}/guides/start.md`, { body: "y", lastKnownHash: "sha256:" + "0".repeat(64) })).status).toBe(403);
    // Below hr/, a list cannot grant Bob what hr/ does not.
    const widen = await ana.client.put(access(), { path: "hr/salaries.md", entries: [{ who: ana.email, level: "edit" }, { who: bob.email, level: "edit" }] });
    expect(widen.status).toBe(400);
    expect((await ana.client.put(access(), { path: "guides/", entries: [] })).status).toBe(200);
  });

  test("through MCP: an editor's key with the admin scope reads and sets where they have edit", async () => {
    const client = await httpClient(`${server.url}/mcp`, (await createKey(ana, ["read", "write", "admin"], { workspace_id: ws })).key);
    mcp.push(client);
    const listed = (await ok(client, "quire_get_access", { workspace: slug })).restricted;
    expect(Object.keys(listed)).toEqual(["hr/"]);
    const set = await ok(client, "quire_set_access", { workspace: slug, path: "hr/", entries: [...hrList(), { who: bob.email, level: "comment" }] });
    expect(set).toMatchObject({ path: "hr/", restricted: true });
    expect(await refused(client, "quire_set_access", { workspace: slug, path: "board/", entries: [] })).toMatch(/not found/i);
    expect((await owner.client.put(settings(), { editors_manage_access: false })).status).toBe(200);
    expect(await refused(client, "quire_set_access", { workspace: slug, path: "hr/", entries: hrList() })).toContain("admin role");
    expect((await ana.client.put(access(), { path: "hr/", entries: hrList() })).status).toBe(403);
  });
});
