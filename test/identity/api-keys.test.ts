import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { createHash, createHmac } from "node:crypto";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { loadConfig, ConfigError } from "../../src/config.ts";
import { expectError } from "../http/support.ts";

const PEPPER = "test-pepper-0123456789abcdef";
const SECRET = /^quire_live_[0-9A-Za-z]{43}$/;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ API_KEY_PEPPER: PEPPER });
});
afterAll(() => server.close());

const rowOf = (id: string) =>
  server.services.db.query<Record<string, any>, [string]>("SELECT * FROM api_keys WHERE id = ?").get(id);
const keyCount = () => server.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM api_keys").get()!.n;
const me = (key: string) => new Client(server.url).get("/api/auth/me", { token: key });

describe("create", () => {
  test("returns the secret once, with default scopes; stores only an HMAC of it under the pepper", async () => {
    const u = await registerUser(server.url);
    const r = await u.client.post("/api/v1/api-keys", { name: "deploy bot" });
    expect(r.status).toBe(201);
    expect(r.body.key).toMatch(SECRET);
    // (a copy: bun's toMatchObject writes its matchers into the object it checks)
    expect({ ...r.body }).toMatchObject({
      id: expect.stringMatching(ULID),
      name: "deploy bot",
      prefix: r.body.key.slice(0, 12),
      scopes: ["read", "write", "delete"],
      workspace_id: null,
      expires_at: null,
      last_used_at: null,
    });
    expect(r.body.secret_hash).toBeUndefined();

    const row = rowOf(r.body.id)!;
    expect(row.secret_hash).toBe(createHmac("sha256", PEPPER).update(r.body.key).digest("hex"));
    expect(row.secret_hash).not.toBe(createHash("sha256").update(r.body.key).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(r.body.key);
    expect(row.prefix).toHaveLength(12);

    expect((await me(r.body.key)).body.user.id).toBe(u.id);
  });

  test("secrets differ every time", async () => {
    const u = await registerUser(server.url);
    const keys = new Set<string>();
    for (let i = 0; i < 10; i++) keys.add((await u.client.post("/api/v1/api-keys", {})).body.key);
    expect(keys.size).toBe(10);
  });

  test("explicit scopes, a future expiry and a workspace limit are kept", async () => {
    const u = await registerUser(server.url);
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const r = await u.client.post("/api/v1/api-keys", { name: "ro", scopes: ["read", "read"], expires_at: expires, workspace_id: u.workspaceId });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ scopes: ["read"], expires_at: expires, workspace_id: u.workspaceId });
  });

  test("expires_at in the past (or now) → 400 naming expires_at; nothing stored", async () => {
    const u = await registerUser(server.url);
    const before = keyCount();
    for (const expires_at of [Math.floor(Date.now() / 1000) - 10, Math.floor(Date.now() / 1000), 1]) {
      const r = expectError(await u.client.post("/api/v1/api-keys", { expires_at }), 400, "VALIDATION_ERROR");
      expect(r.body.details.field).toBe("expires_at");
    }
    expect(keyCount()).toBe(before);
  });

  test("bad input → 400 naming the field, nothing stored", async () => {
    const u = await registerUser(server.url);
    const before = keyCount();
    const cases: Array<[unknown, string]> = [
      [{ name: "x".repeat(100 * 1024) }, "name"],
      [{ name: "bad\u0000name" }, "name"],
      [{ name: "\u001b[31mred" }, "name"],
      [{ name: "evil\u202etxt.exe" }, "name"],
      [{ name: "" }, "name"],
      [{ name: 42 }, "name"],
      [{ scopes: ["read", "superuser"] }, "scopes.1"],
      [{ scopes: "read" }, "scopes"],
      [{ scopes: { 0: "read" } }, "scopes"],
      [{ scopes: [] }, "scopes"],
      [{ scopes: [null] }, "scopes.0"],
      [{ expires_at: "1999999999" }, "expires_at"],
      [{ expires_at: String(Math.floor(Date.now() / 1000) + 3600) }, "expires_at"],
      [{ expires_at: 1.5e9 + 0.5 }, "expires_at"],
      [{ expires_at: 1e15 }, "expires_at"],
      [{ workspace_id: "not-a-ulid" }, "workspace_id"],
      [{ workspace_id: "01J00000000000000000000000" }, "workspace_id"],
      [{ scope: ["read"] }, "body"],
    ];
    for (const [body, field] of cases) {
      const r = expectError(await u.client.post("/api/v1/api-keys", body), 400, "VALIDATION_ERROR");
      expect({ body, field: r.body.details?.field }).toEqual({ body, field });
    }
    expect(keyCount()).toBe(before);
  });

  test("a workspace of another organization cannot be named", async () => {
    const u = await registerUser(server.url);
    const other = await registerUser(server.url);
    const r = expectError(await u.client.post("/api/v1/api-keys", { workspace_id: other.workspaceId }), 400, "VALIDATION_ERROR");
    expect(r.body.details.field).toBe("workspace_id");
  });

  test("an API key cannot create, rotate or delete keys (a key could otherwise outgrow itself); it may list", async () => {
    const u = await registerUser(server.url);
    const admin = (await u.client.post("/api/v1/api-keys", { scopes: ["admin"] })).body;
    const limited = (await u.client.post("/api/v1/api-keys", { scopes: ["read"], workspace_id: u.workspaceId })).body;
    const before = keyCount();
    expectError(await new Client(server.url).post("/api/v1/api-keys", { scopes: ["admin"] }, { token: admin.key }), 401, "UNAUTHORIZED");
    expectError(await new Client(server.url).post(`/api/v1/api-keys/${limited.id}/rotate`, undefined, { token: admin.key }), 401, "UNAUTHORIZED");
    expectError(await new Client(server.url).delete(`/api/v1/api-keys/${limited.id}`, { token: admin.key }), 401, "UNAUTHORIZED");
    expect(keyCount()).toBe(before);
    expect((await new Client(server.url).get("/api/v1/api-keys", { token: limited.key })).status).toBe(200);
  });

  test("anonymous callers get 401", async () => {
    expectError(await new Client(server.url).post("/api/v1/api-keys", {}), 401, "UNAUTHORIZED");
    expectError(await new Client(server.url).get("/api/v1/api-keys"), 401, "UNAUTHORIZED");
  });
});

describe("list", () => {
  test("shows prefixes only: neither the secret nor its hash ever appears", async () => {
    const u = await registerUser(server.url);
    const a = (await u.client.post("/api/v1/api-keys", { name: "a" })).body;
    const b = (await u.client.post("/api/v1/api-keys", { name: "b", scopes: ["read"] })).body;
    const r = await u.client.get("/api/v1/api-keys");
    expect(r.status).toBe(200);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.items.map((k: any) => k.name)).toEqual(["b", "a"]);
    for (const item of r.body.items) {
      expect(Object.keys(item).sort()).toEqual(["created_at", "expires_at", "id", "last_used_at", "name", "org_id", "prefix", "scopes", "workspace_id"]);
    }
    for (const k of [a, b]) {
      expect(r.text).not.toContain(k.key);
      expect(r.text).not.toContain(rowOf(k.id)!.secret_hash);
      expect(r.text).toContain(k.key.slice(0, 12));
    }
  });

  test("each user sees only their own keys", async () => {
    const u = await registerUser(server.url);
    const other = await registerUser(server.url);
    await other.client.post("/api/v1/api-keys", { name: "theirs" });
    expect((await u.client.get("/api/v1/api-keys")).body.items).toEqual([]);
  });
});

describe("delete and rotate", () => {
  test("delete: 204, the key stops working, a second delete is 404", async () => {
    const u = await registerUser(server.url);
    const k = (await u.client.post("/api/v1/api-keys", {})).body;
    expect((await me(k.key)).status).toBe(200);
    const r = await u.client.delete(`/api/v1/api-keys/${k.id}`);
    expect(r.status).toBe(204);
    expect(rowOf(k.id)).toBeNull();
    expectError(await me(k.key), 401, "UNAUTHORIZED");
    expectError(await u.client.delete(`/api/v1/api-keys/${k.id}`), 404, "NOT_FOUND");
  });

  test("rotate: same id, name and scopes, a new secret; the old one is refused at once", async () => {
    const u = await registerUser(server.url);
    const k = (await u.client.post("/api/v1/api-keys", { name: "ci", scopes: ["read", "write"] })).body;
    expect((await me(k.key)).status).toBe(200);
    const r = await u.client.post(`/api/v1/api-keys/${k.id}/rotate`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: k.id, name: "ci", scopes: ["read", "write"], prefix: r.body.key.slice(0, 12) });
    expect(r.body.key).toMatch(SECRET);
    expect(r.body.key).not.toBe(k.key);
    expectError(await me(k.key), 401, "UNAUTHORIZED");
    expect((await me(r.body.key)).status).toBe(200);
    expect(rowOf(k.id)!.secret_hash).toBe(createHmac("sha256", PEPPER).update(r.body.key).digest("hex"));
  });

  test("another user's key id → 404 on delete and rotate, and the key keeps working", async () => {
    const owner = await registerUser(server.url);
    const k = (await owner.client.post("/api/v1/api-keys", {})).body;
    const intruder: TestUser = await registerUser(server.url);
    expectError(await intruder.client.delete(`/api/v1/api-keys/${k.id}`), 404, "NOT_FOUND");
    expectError(await intruder.client.post(`/api/v1/api-keys/${k.id}/rotate`), 404, "NOT_FOUND");
    expectError(await intruder.client.post(`/api/v1/api-keys/nonexistent/rotate`), 404, "NOT_FOUND");
    expect((await me(k.key)).status).toBe(200);
    expect(rowOf(k.id)!.secret_hash).toBe(createHmac("sha256", PEPPER).update(k.key).digest("hex"));
  });
});

describe("use", () => {
  test("an expired key is 401", async () => {
    const u = await registerUser(server.url);
    const k = (await u.client.post("/api/v1/api-keys", { expires_at: Math.floor(Date.now() / 1000) + 3600 })).body;
    expect((await me(k.key)).status).toBe(200);
    server.services.db.query("UPDATE api_keys SET expires_at = ? WHERE id = ?").run(Math.floor(Date.now() / 1000) - 1, k.id);
    expectError(await me(k.key), 401, "UNAUTHORIZED");
  });

  test("malformed, truncated or tampered secrets are 401", async () => {
    const u = await registerUser(server.url);
    const k = (await u.client.post("/api/v1/api-keys", {})).body.key as string;
    const flipped = k.slice(0, -1) + (k.endsWith("A") ? "B" : "A");
    for (const bad of [k.slice(0, -1), k + "x", flipped, k.toUpperCase(), k.replace("quire_live_", "quire_test_"), "quire_live_"]) {
      expectError(await me(bad), 401, "UNAUTHORIZED");
    }
  });

  test("last_used_at is written on use, then at most once a minute", async () => {
    const u = await registerUser(server.url);
    const k = (await u.client.post("/api/v1/api-keys", {})).body;
    expect(rowOf(k.id)!.last_used_at).toBeNull();
    await me(k.key);
    const first = rowOf(k.id)!.last_used_at as string;
    expect(Date.parse(first)).toBeGreaterThan(Date.now() - 5000);
    for (let i = 0; i < 5; i++) await me(k.key);
    expect(rowOf(k.id)!.last_used_at).toBe(first);
    // a minute later the next use is recorded again
    const later = Math.floor(Date.parse(first) / 1000) + 61;
    expect(server.services.apiKeys.authenticate(k.key, later)).not.toBeNull();
    expect(rowOf(k.id)!.last_used_at).toBe(new Date(later * 1000).toISOString());
    const listed = (await u.client.get("/api/v1/api-keys")).body.items.find((i: any) => i.id === k.id);
    expect(listed.last_used_at).toBe(new Date(later * 1000).toISOString());
  });
});

describe("the pepper", () => {
  test("a key only works under the pepper it was made with", async () => {
    const dir = tempDir();
    try {
      let s = await startTestServer({ API_KEY_PEPPER: "first-pepper-aaaaaaaaaaaa" }, { dataDir: dir, keepDir: true });
      const u = await registerUser(s.url);
      const key = (await u.client.post("/api/v1/api-keys", {})).body.key as string;
      expect((await new Client(s.url).get("/api/auth/me", { token: key })).status).toBe(200);
      await s.close();

      s = await startTestServer({ API_KEY_PEPPER: "second-pepper-bbbbbbbbbbb" }, { dataDir: dir, keepDir: true });
      expectError(await new Client(s.url).get("/api/auth/me", { token: key }), 401, "UNAUTHORIZED");
      await s.close();

      s = await startTestServer({ API_KEY_PEPPER: "first-pepper-aaaaaaaaaaaa" }, { dataDir: dir, keepDir: true });
      expect((await new Client(s.url).get("/api/auth/me", { token: key })).status).toBe(200);
      await s.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("QUIRE_ENV=production without API_KEY_PEPPER refuses to start, naming the variable", () => {
    let error: unknown;
    try {
      loadConfig({ QUIRE_ENV: "production" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.join("\n")).toContain("API_KEY_PEPPER");
    expect(loadConfig({ QUIRE_ENV: "production", API_KEY_PEPPER: PEPPER }).apiKeyPepper).toBe(PEPPER);
    expect(loadConfig({ QUIRE_ENV: "production", QUIRE_API_KEY_PEPPER: PEPPER }).apiKeyPepper).toBe(PEPPER);
    expect(() => loadConfig({ QUIRE_ENV: "production", API_KEY_PEPPER: "short" })).toThrow(ConfigError);
  });
});
