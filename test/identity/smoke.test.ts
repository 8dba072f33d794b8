import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test("health", async () => {
  const c = new Client(server.url);
  const r = await c.get("/api/health");
  expect(r.status).toBe(200);
  expect(r.body.status).toBe("ok");
  expect(r.headers.get("x-request-id")).toBeTruthy();
});

test("register and me", async () => {
  const u = await registerUser(server.url);
  const me = await u.client.get("/api/auth/me");
  expect(me.status).toBe(200);
  expect(me.body.user.email).toBe(u.email);
  const r = await u.client.post("/api/auth/login", { email: u.email, password: u.password });
  expect(r.status).toBe(200);
  // /me is a read of one's own session; the login is the account's first credential request.
  expect(r.headers.get("x-ratelimit-remaining")).toBe("19");
});
