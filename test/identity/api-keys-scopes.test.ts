import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { createApp } from "../../src/app.ts";
import type { ApiKeyScope } from "../../src/core/principal.ts";
import { expectError } from "../http/support.ts";

let server: TestServer;
let probe: { url: string; stop(): void };
beforeAll(async () => {
  server = await startTestServer();
  // The real app plus one path that answers every method, so the scope gate is seen on its own.
  const echo = ({ principal }: { principal: unknown }) => ({ ok: true, principal: (principal as { kind?: string } | null)?.kind ?? null });
  const app = createApp(server.services)
    .get("/api/test-scope", echo)
    .post("/api/test-scope", echo)
    .put("/api/test-scope", echo)
    .patch("/api/test-scope", echo)
    .delete("/api/test-scope", echo)
    .options("/api/test-scope", echo)
    .listen({ port: 0, hostname: "127.0.0.1" });
  probe = { url: `http://127.0.0.1:${app.server!.port}`, stop: () => app.stop(true) };
});
afterAll(async () => {
  probe.stop();
  await server.close();
});

const METHODS = ["GET", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const;
const ALLOWED: Record<ApiKeyScope, ReadonlyArray<(typeof METHODS)[number]>> = {
  read: ["GET", "OPTIONS"],
  write: ["GET", "OPTIONS", "POST", "PUT", "PATCH"],
  delete: ["GET", "OPTIONS", "DELETE"],
  admin: METHODS,
  "admin:read": ["GET", "OPTIONS"],
};

async function keyOf(u: TestUser, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const r = await u.client.post("/api/v1/api-keys", body);
  if (r.status !== 201) throw new Error(`key creation failed: ${r.status} ${r.text}`);
  return r.body;
}

describe("scope × method", () => {
  test.each(Object.keys(ALLOWED) as ApiKeyScope[])("a %s key", async (scope) => {
    const u = await registerUser(server.url);
    const { key } = await keyOf(u, { scopes: [scope] });
    const c = new Client(probe.url).withToken(key);
    for (const method of METHODS) {
      const r = await c.request(method, "/api/test-scope", method === "GET" || method === "OPTIONS" || method === "DELETE" ? {} : { json: {} });
      if (ALLOWED[scope].includes(method)) {
        expect({ method, status: r.status }).toEqual({ method, status: 200 });
        expect(r.body.principal).toBe("api_key");
      } else {
        expect({ method, status: r.status }).toEqual({ method, status: 403 });
        expectError(r, 403, "FORBIDDEN");
      }
    }
  });

  test("scopes add up: read+delete may GET and DELETE but not write", async () => {
    const u = await registerUser(server.url);
    const { key } = await keyOf(u, { scopes: ["read", "delete"] });
    const c = new Client(probe.url).withToken(key);
    expect((await c.get("/api/test-scope")).status).toBe(200);
    expect((await c.delete("/api/test-scope")).status).toBe(200);
    expectError(await c.post("/api/test-scope", {}), 403, "FORBIDDEN");
  });

  test("a signed-in session is not limited by scopes", async () => {
    const u = await registerUser(server.url);
    const c = new Client(probe.url).withToken(u.accessToken);
    for (const method of METHODS) expect((await c.request(method, "/api/test-scope")).status).toBe(200);
  });

  test("the scope gate runs before the route: a read key cannot reach a write endpoint's logic", async () => {
    const u = await registerUser(server.url);
    const { key } = await keyOf(u, { scopes: ["read"] });
    const slug = `scoped-${Date.now()}`;
    expectError(await new Client(server.url).post("/api/v1/workspaces", { name: "Nope", slug }, { token: key }), 403, "FORBIDDEN");
    expect(server.services.db.query("SELECT id FROM workspaces WHERE slug = ?").get(slug)).toBeNull();
  });
});

describe("a scope never exceeds the role; keys stay inside their organization", () => {
  let owner: TestUser;
  let viewer: TestUser;
  let second: string;
  beforeAll(async () => {
    owner = await registerUser(server.url);
    viewer = await registerUser(server.url);
    const link = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/share-links`, { role: "viewer" });
    expect(link.status).toBe(201);
    expect((await viewer.client.post(`/api/v1/share-links/${link.body.token}/use`)).status).toBeLessThan(300);
    const ws = await owner.client.post("/api/v1/workspaces", { name: "Second", slug: `second-${Date.now()}` });
    expect(ws.status).toBe(201);
    second = ws.body.id;
  });

  test("a viewer's admin-scoped key (limited to the shared workspace) reads it but cannot administer it", async () => {
    const { key } = await keyOf(viewer, { scopes: ["admin"], workspace_id: owner.workspaceId });
    const c = new Client(server.url).withToken(key);
    const ws = await c.get(`/api/v1/workspaces/${owner.workspaceId}`);
    expect(ws.status).toBe(200);
    expect(ws.body.role).toBe("viewer");
    expectError(await c.get(`/api/v1/workspaces/${owner.workspaceId}/admin/members`), 403, "FORBIDDEN");
    expectError(await c.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { name: "Taken over" }), 403, "FORBIDDEN");
    expectError(await c.post(`/api/v1/workspaces/${owner.workspaceId}/share-links`, { role: "editor" }), 403, "FORBIDDEN");
    expect([403, 404]).toContain((await c.delete(`/api/v1/workspaces/${owner.workspaceId}`)).status);
    const row = server.services.db.query<{ name: string; deleted_at: string | null }, [string]>("SELECT name, deleted_at FROM workspaces WHERE id = ?").get(owner.workspaceId)!;
    expect(row.deleted_at).toBeNull();
    expect(row.name).not.toBe("Taken over");
    // and the same through the permission check itself
    const principal = server.services.apiKeys.authenticate(key, Math.floor(Date.now() / 1000))!;
    expect(() => server.services.permissions.require(principal, { id: owner.workspaceId }, "admin")).toThrow(/admin/);
    expect(server.services.permissions.require(principal, { id: owner.workspaceId }, "viewer").role).toBe("viewer");
  });

  test("a key made in the viewer's own organization does not reach the other organization's workspace", async () => {
    const { key } = await keyOf(viewer, { scopes: ["admin"] });
    const c = new Client(server.url).withToken(key);
    expectError(await c.get(`/api/v1/workspaces/${owner.workspaceId}`), 404, "NOT_FOUND");
    const list = await c.get("/api/v1/workspaces");
    expect(list.status).toBe(200);
    expect(list.body.items.map((w: { id: string }) => w.id)).toEqual([viewer.workspaceId]);
    // the viewer's own session still sees both
    const mine = await viewer.client.get("/api/v1/workspaces");
    expect(mine.body.items.map((w: { id: string }) => w.id).sort()).toEqual([owner.workspaceId, viewer.workspaceId].sort());
  });

  test("a key limited to one workspace sees every other workspace as 404", async () => {
    const { key } = await keyOf(owner, { scopes: ["admin"], workspace_id: second });
    const c = new Client(server.url).withToken(key);
    expect((await c.get(`/api/v1/workspaces/${second}`)).status).toBe(200);
    expectError(await c.get(`/api/v1/workspaces/${owner.workspaceId}`), 404, "NOT_FOUND");
    expectError(await c.get(`/api/v1/workspaces/${owner.workspaceId}/admin/members`), 404, "NOT_FOUND");
    expectError(await c.delete(`/api/v1/workspaces/${owner.workspaceId}`), 404, "NOT_FOUND");
    expect((await c.get("/api/v1/workspaces")).body.items.map((w: { id: string }) => w.id)).toEqual([second]);
  });

  test("a key of another organization sees the workspace as 404", async () => {
    const stranger = await registerUser(server.url);
    const { key } = await keyOf(stranger, { scopes: ["admin"] });
    expectError(await new Client(server.url).get(`/api/v1/workspaces/${owner.workspaceId}`, { token: key }), 404, "NOT_FOUND");
  });

  test("the owner's admin key may administer: scopes and role both allow it", async () => {
    const { key } = await keyOf(owner, { scopes: ["admin"] });
    const r = await new Client(server.url).get(`/api/v1/workspaces/${owner.workspaceId}/admin/members`, { token: key });
    expect(r.status).toBe(200);
  });
});
