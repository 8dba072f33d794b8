import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { memberWithRole } from "../access/support.ts";

let server: TestServer;
let owner: TestUser;
let admin: TestUser;
let ws: string;
beforeAll(async () => {
  server = await startTestServer({ BASE_URL: "https://docs.example.test" });
  owner = await registerUser(server.url);
  const created = await owner.client.post("/api/v1/workspaces", { name: "Settings", slug: "settings-ws" });
  ws = created.body.id;
  // Creating with a remote clones it (unreachable here), so the stored remote is set directly:
  // these tests are about how settings show it.
  server.services.db
    .query("UPDATE workspaces SET git_remote = ? WHERE id = ?")
    .run("https://user:pw@git.example.test/team/docs.git", ws);
  admin = await memberWithRole(server, owner, ws, "admin");
});
afterAll(() => server.close());

const path = () => `/api/v1/workspaces/${ws}/admin/settings`;
const storedSettings = () =>
  JSON.parse(server.services.db.query<any, [string]>("SELECT settings FROM workspaces WHERE id = ?").get(ws).settings);

describe("settings", () => {
  test("GET shows every editable key with defaults, the webhook secret and its URL", async () => {
    const r = await admin.client.get(path());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: ws,
      slug: "settings-ws",
      name: "Settings",
      description: "",
      git_remote: "https://git.example.test/team/docs.git",
      git_branch: "main",
      git_auto_commit: true,
      sync_interval: 300,
      editor_can_create_pages: true,
      editor_can_delete_pages: false,
      theme: "default",
      visibility: "authenticated",
      navigation: {},
      custom_domain: null,
      editors_manage_access: false,
      webhook_url: `https://docs.example.test/api/git/webhook/${ws}`,
    });
    expect(r.body.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
  });

  test("PUT one key leaves every other key as it was", async () => {
    const full = {
      name: "Renamed",
      description: "All about it",
      git_branch: "trunk",
      git_auto_commit: false,
      sync_interval: 60,
      editor_can_create_pages: false,
      editor_can_delete_pages: true,
      theme: "forest",
      visibility: "public",
      navigation: { sections: [{ title: "Guide", children: ["intro.md"] }] },
      custom_domain: "Docs.Example.COM",
    };
    const put = await admin.client.put(path(), full);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ ...full, custom_domain: "docs.example.com" });
    const before = (await admin.client.get(path())).body;

    for (const [key, value] of [
      ["theme", "rose"],
      ["sync_interval", 10],
      ["navigation", { items: [] }],
      ["custom_domain", null],
      ["editor_can_delete_pages", false],
      ["editors_manage_access", true],
      ["name", "Renamed again"],
    ] as const) {
      const r = await admin.client.put(path(), { [key]: value });
      expect(r.status).toBe(200);
      const after = (await admin.client.get(path())).body;
      expect(after).toEqual({ ...before, [key]: value });
      Object.assign(before, { [key]: value });
    }
    // The record shows the column-backed settings too.
    const record = await admin.client.get(`/api/v1/workspaces/${ws}`);
    expect(record.body).toMatchObject({ name: "Renamed again", git_branch: "trunk", sync_interval: 10, git_auto_commit: false });
  });

  test("keys other domains keep in the settings JSON survive a PUT", async () => {
    server.services.db
      .query("UPDATE workspaces SET settings = json_set(settings, '$.publish_state', 'kept') WHERE id = ?")
      .run(ws);
    expect((await admin.client.put(path(), { theme: "amber" })).status).toBe(200);
    expect(storedSettings()).toMatchObject({ publish_state: "kept", theme: "amber" });
  });

  test("unknown and read-only keys are 400 naming the field; nothing changes", async () => {
    const before = (await admin.client.get(path())).body;
    for (const [body, field] of [
      [{ theme: "dark", colour: "red" }, "colour"],
      [{ webhook_secret: "0".repeat(64) }, "webhook_secret"],
      [{ git_remote: "https://evil.example/x.git" }, "git_remote"],
      [{ slug: "other" }, "slug"],
      [{ sync_interval: 9 }, "sync_interval"],
      [{ sync_interval: 30.5 }, "sync_interval"],
      [{ sync_interval: "60" }, "sync_interval"],
      [{ theme: "neon" }, "theme"],
      [{ visibility: "private" }, "visibility"],
      [{ navigation: ["a"] }, "navigation"],
      [{ navigation: "nav" }, "navigation"],
      [{ custom_domain: "not a domain" }, "custom_domain"],
      [{ custom_domain: "localhost" }, "custom_domain"],
      [{ git_branch: "a..b" }, "git_branch"],
      [{ name: "" }, "name"],
      [{ editor_can_create_pages: "yes" }, "editor_can_create_pages"],
    ] as const) {
      const r = await admin.client.put(path(), body);
      expect({ body, status: r.status, field: r.body.details?.field }).toEqual({ body, status: 400, field });
      expect(r.body.error).toBe("VALIDATION_ERROR");
    }
    const notObject = await admin.client.put(path(), [1]);
    expect(notObject.status).toBe(400);
    expect((await admin.client.get(path())).body).toEqual(before);
  });

  test("every theme name is accepted", async () => {
    for (const theme of ["default", "dark", "forest", "rose", "amber", "minimal", "corporate"]) {
      const r = await admin.client.put(path(), { theme });
      expect(r.status).toBe(200);
      expect(r.body.theme).toBe(theme);
    }
  });

  test("a custom domain belongs to one workspace", async () => {
    expect((await admin.client.put(path(), { custom_domain: "handbook.example.org" })).status).toBe(200);
    const other = await owner.client.post("/api/v1/workspaces", { name: "Other", slug: "settings-other" });
    const r = await owner.client.put(`/api/v1/workspaces/${other.body.id}/admin/settings`, { custom_domain: "handbook.example.org" });
    expect(r.status).toBe(409);
    expect(r.body.details.field).toBe("custom_domain");
    // Setting it again on its own workspace is fine.
    expect((await admin.client.put(path(), { custom_domain: "handbook.example.org" })).status).toBe(200);
  });

  test("regenerating the webhook secret replaces it", async () => {
    const before = (await admin.client.get(path())).body.webhook_secret;
    const r = await admin.client.post(`${path()}/webhook-secret/regenerate`);
    expect(r.status).toBe(200);
    expect(r.body.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.webhook_secret).not.toBe(before);
    const row = server.services.db.query<any, [string]>("SELECT webhook_secret FROM workspaces WHERE id = ?").get(ws);
    expect(row.webhook_secret).toBe(r.body.webhook_secret);
  });

  test("editors and below are refused (403) and change nothing", async () => {
    const before = (await admin.client.get(path())).body;
    for (const role of ["viewer", "commenter", "editor"] as const) {
      const u = await memberWithRole(server, owner, ws, role);
      expect((await u.client.get(path())).status).toBe(403);
      expect((await u.client.put(path(), { theme: "dark" })).status).toBe(403);
      expect((await u.client.post(`${path()}/webhook-secret/regenerate`)).status).toBe(403);
    }
    expect((await admin.client.get(path())).body).toEqual(before);
  });
});
