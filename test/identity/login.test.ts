import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { cookieAttributes, errorOf, setCookie, signUp, snapshot } from "./support.ts";

// A low threshold and a one-second lock keep the lockout tests quick.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ QUIRE_LOGIN_LOCK_THRESHOLD: "3", QUIRE_LOGIN_LOCK_DURATION_SEC: "1" });
});
afterAll(() => server.close());

const login = (email: string, password: string) => new Client(server.url).post("/api/auth/login", { email, password });
const userRow = (id: string) =>
  server.services.db.query<{ failed_logins: number; locked_until: number | null }, [string]>(
    "SELECT failed_logins, locked_until FROM users WHERE id = ?",
  ).get(id)!;
/** The error body without its per-request id, for comparing two answers. */
const generic = (r: { body: any }) => ({ ...r.body, request_id: undefined });

describe("login", () => {
  test("200 with access token, refresh token and expires_in 900; the refresh cookie is set", async () => {
    const u = await signUp(server.url);
    const r = await login(`  ${u.email.toUpperCase()} `, u.password);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 900 });
    const cookie = cookieAttributes(setCookie(r.headers, "quire_refresh")!);
    expect(cookie.value).toBe(r.body.refresh_token);
    expect(cookie).toHaveProperty("httponly");
    expect(cookie.samesite?.toLowerCase()).toBe("strict");
    expect(cookie.path).toBe("/api/auth");
    const me = await new Client(server.url).get("/api/auth/me", { token: r.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(u.email);
    // Each login is its own session.
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").get(u.id)).toEqual({ n: 2 });
  });

  test("a wrong password and an unknown email get the same generic 401", async () => {
    const u = await signUp(server.url);
    const wrong = await login(u.email, "not the password");
    const unknown = await login(`nobody.${Date.now()}@example.test`, "whatever password");
    errorOf(wrong, 401, "UNAUTHORIZED");
    errorOf(unknown, 401, "UNAUTHORIZED");
    expect(generic(wrong)).toEqual(generic(unknown));
    expect(setCookie(wrong.headers, "quire_refresh")).toBeUndefined();
    expect(userRow(u.id).failed_logins).toBe(1);
  });

  test("after the threshold of failures the account is locked: even the right password gets the same 401", async () => {
    const u = await signUp(server.url);
    const wrong = await login(u.email, "wrong one");
    await login(u.email, "wrong two");
    await login(u.email, "wrong three");
    expect(userRow(u.id).locked_until).toBeGreaterThan(Date.now());
    const locked = await login(u.email, u.password);
    errorOf(locked, 401, "UNAUTHORIZED");
    expect(generic(locked)).toEqual(generic(wrong));
    expect(locked.headers.get("retry-after")).toBeNull();
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").get(u.id)).toEqual({ n: 1 });

    // QUIRE_LOGIN_LOCK_DURATION_SEC=1: once it has passed the right password works and the counter restarts.
    await Bun.sleep(1100);
    const after = await login(u.email, u.password);
    expect(after.status).toBe(200);
    expect(userRow(u.id)).toEqual({ failed_logins: 0, locked_until: null });
  });

  test("a successful login resets the failure counter", async () => {
    const u = await signUp(server.url);
    for (let round = 0; round < 3; round++) {
      await login(u.email, "wrong");
      await login(u.email, "wrong again");
      expect(userRow(u.id).failed_logins).toBe(2);
      const ok = await login(u.email, u.password);
      expect(ok.status).toBe(200);
      expect(userRow(u.id)).toEqual({ failed_logins: 0, locked_until: null });
    }
  });

  test("failures on one account do not lock another", async () => {
    const a = await signUp(server.url);
    const b = await signUp(server.url);
    for (let i = 0; i < 3; i++) await login(a.email, "wrong");
    expect((await login(a.email, a.password)).status).toBe(401);
    expect((await login(b.email, b.password)).status).toBe(200);
  });

  test("more than 20 auth requests a minute from one address are 429 with rate-limit headers", async () => {
    const c = new Client(server.url);
    for (let i = 0; i < 20; i++) {
      const r = await c.post("/api/auth/login", { email: `ghost${i}@example.test`, password: "whatever" });
      expect(r.status).toBe(401);
    }
    const r = await c.post("/api/auth/login", { email: "ghost@example.test", password: "whatever" });
    errorOf(r, 429, "RATE_LIMITED");
    expect(r.headers.get("x-ratelimit-limit")).toBe("20");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(r.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
  });

  test("a rejected login changes nothing but the failure counter", async () => {
    const u = await signUp(server.url);
    const before = snapshot(server.services.db);
    errorOf(await login(`ghost.${Date.now()}@example.test`, "whatever"), 401, "UNAUTHORIZED");
    expect(snapshot(server.services.db)).toBe(before);
    errorOf(await login(u.email, "wrong"), 401, "UNAUTHORIZED");
    expect(userRow(u.id).failed_logins).toBe(1);
  });
});

describe("password hashing under the default configuration", () => {
  test("argon2id with m=65536, t=3, p=2 (server started without the fast ARGON2 test settings)", async () => {
    // Empty values fall back to the defaults, exactly as if the variables were unset.
    const slow = await startTestServer({ ARGON2_MEMORY: "", ARGON2_TIME: "", ARGON2_THREADS: "" });
    try {
      expect(slow.config.argon2).toEqual({ memoryKiB: 65536, iterations: 3, parallelism: 2 });
      const u = await signUp(slow.url);
      const { password_hash } = slow.services.db
        .query<{ password_hash: string }, [string]>("SELECT password_hash FROM users WHERE id = ?")
        .get(u.id)!;
      expect(password_hash).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=2\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
      // Salt 16 bytes (22 base64 characters), key 32 bytes (43); and the hash verifies.
      expect((await new Client(slow.url).post("/api/auth/login", { email: u.email, password: u.password })).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});
