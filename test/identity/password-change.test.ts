import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const hashOf = (id: string) => server.services.db.query<{ password_hash: string }, [string]>("SELECT password_hash FROM users WHERE id = ?").get(id)!.password_hash;

describe("change password while signed in", () => {
  test("the current password is required; the new one works, the old one does not, every session ends", async () => {
    const user = await registerUser(server.url);
    const other = new Client(server.url);
    const second = await other.post("/api/auth/login", { email: user.email, password: user.password });
    expect(second.status).toBe(200);
    const before = hashOf(user.id);

    const wrong = await user.client.post("/api/auth/change-password", { current_password: "not it at all", new_password: "a brand new password" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("VALIDATION_ERROR");
    expect(wrong.body.details.field).toBe("current_password");
    expect(hashOf(user.id)).toBe(before);

    const ok = await user.client.post("/api/auth/change-password", { current_password: user.password, new_password: "a brand new password" });
    expect(ok.status).toBe(200);
    expect(ok.body.revoked_sessions).toBeGreaterThanOrEqual(2);
    expect(hashOf(user.id)).not.toBe(before);
    expect(hashOf(user.id)).toStartWith("$argon2id$");

    const anon = new Client(server.url);
    expect((await anon.post("/api/auth/login", { email: user.email, password: user.password })).status).toBe(401);
    expect((await anon.post("/api/auth/login", { email: user.email, password: "a brand new password" })).status).toBe(200);
    // Sessions from before the change are gone: their refresh no longer works.
    expect((await other.post("/api/auth/refresh", {})).status).toBe(401);
  });

  test("bad input changes nothing: weak new password, unknown keys, API keys, no credentials", async () => {
    const user = await registerUser(server.url);
    const before = hashOf(user.id);
    const weak = await user.client.post("/api/auth/change-password", { current_password: user.password, new_password: "short" });
    expect(weak.status).toBe(400);
    expect(weak.body.details.field).toBe("new_password");
    const extra = await user.client.post("/api/auth/change-password", { current_password: user.password, new_password: "a brand new password", admin: true });
    expect(extra.status).toBe(400);
    const missing = await user.client.post("/api/auth/change-password", { new_password: "a brand new password" });
    expect(missing.status).toBe(400);
    const anon = await new Client(server.url).post("/api/auth/change-password", { current_password: user.password, new_password: "a brand new password" });
    expect(anon.status).toBe(401);
    const key = await user.client.post("/api/v1/api-keys", { name: "k", scopes: ["admin"] });
    expect(key.status).toBe(201);
    const byKey = await user.client.post("/api/auth/change-password", { current_password: user.password, new_password: "a brand new password" }, { token: key.body.key });
    expect(byKey.status).toBe(401);
    expect(hashOf(user.id)).toBe(before);
  });
});
