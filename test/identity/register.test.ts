import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { cookieAttributes, errorOf, setCookie, signUp, snapshot } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const body = (over: Record<string, unknown> = {}) => ({
  name: "Ada Lovelace",
  email: `ada.${Date.now()}.${Math.random().toString(36).slice(2)}@example.test`,
  password: "analytical engine",
  terms_accepted: true,
  ...over,
});

describe("registration", () => {
  test("201 with user, access token and expiry, plus an HttpOnly SameSite=Strict refresh cookie", async () => {
    const c = new Client(server.url);
    const input = body();
    const r = await c.post("/api/auth/register", input);
    expect(r.status).toBe(201);
    expect(Object.keys(r.body)).toEqual(expect.arrayContaining(["user", "access_token", "expires_at"]));
    expect(r.body.user).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      name: "Ada Lovelace",
      email: input.email,
      email_verified: false,
      has_password: true,
      created_at: expect.any(String),
    });
    expect(r.text).not.toContain("argon2");
    expect(r.body.access_token.split(".")).toHaveLength(3);
    const expiresInMs = Date.parse(r.body.expires_at) - Date.now();
    expect(expiresInMs).toBeGreaterThan(890_000);
    expect(expiresInMs).toBeLessThanOrEqual(900_000);

    const raw = setCookie(r.headers, "quire_refresh");
    expect(raw).toBeDefined();
    const cookie = cookieAttributes(raw!);
    expect(cookie.value.length).toBeGreaterThan(30);
    expect(cookie).toHaveProperty("httponly");
    expect(cookie.samesite?.toLowerCase()).toBe("strict");
    expect(cookie.path).toBe("/api/auth");
    expect(Number(cookie["max-age"])).toBe(7 * 24 * 3600);
    // BASE_URL is plain http here, so the cookie cannot be Secure (browsers would drop it).
    expect(cookie).not.toHaveProperty("secure");

    // The access token works, and the refresh cookie is a real refresh token.
    const me = await c.get("/api/auth/me", { token: r.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(r.body.user.id);
    const refreshed = await c.post("/api/auth/refresh");
    expect(refreshed.status).toBe(200);
  });

  test("creates the user's own organization (Super Admin) and a starter workspace, and no other membership", async () => {
    const other = await signUp(server.url);
    const me = await signUp(server.url);
    const db = server.services.db;

    const user = db.query<any, [string]>("SELECT * FROM users WHERE id = ?").get(me.id);
    expect(user.email).toBe(me.email);
    expect(user.password_hash).toStartWith("$argon2id$");
    expect(user.is_platform_owner).toBe(0);

    const orgs = db.query<any, [string]>("SELECT o.*, m.role FROM org_members m JOIN organizations o ON o.id = m.org_id WHERE m.user_id = ?").all(me.id);
    expect(orgs).toHaveLength(1);
    expect(orgs[0].role).toBe("super_admin");
    expect(orgs[0].owner_id).toBe(me.id);

    const workspaces = db.query<any, [string]>("SELECT * FROM workspaces WHERE org_id = ?").all(orgs[0].id);
    expect(workspaces).toHaveLength(1);
    expect(workspaces[0].created_by).toBe(me.id);
    expect(workspaces[0].deleted_at).toBeNull();
    const wsMembers = db.query<any, [string]>("SELECT workspace_id, role FROM workspace_members WHERE user_id = ?").all(me.id);
    expect(wsMembers).toEqual([{ workspace_id: workspaces[0].id, role: "admin" }]);

    // Not a member of the organization or workspaces of the user who registered before.
    const otherOrg = db.query<any, [string]>("SELECT org_id FROM org_members WHERE user_id = ?").get(other.id);
    expect(db.query("SELECT 1 FROM org_members WHERE org_id = ? AND user_id = ?").get(otherOrg.org_id, me.id)).toBeNull();
    expect(
      db
        .query("SELECT 1 FROM workspace_members wm JOIN workspaces w ON w.id = wm.workspace_id WHERE w.org_id = ? AND wm.user_id = ?")
        .get(otherOrg.org_id, me.id),
    ).toBeNull();
  });

  test("a second account for the same email is 409 and reveals nothing else, whatever the case or spacing", async () => {
    const first = await signUp(server.url, { name: "Secret Name" });
    const before = snapshot(server.services.db);
    const variants = [first.email, first.email.toUpperCase(), `  ${first.email}  `, first.email.replace(/^./, (ch) => ch.toUpperCase())];
    for (const email of variants) {
      const r = await new Client(server.url).post("/api/auth/register", body({ email, password: "another password" }));
      const err = errorOf(r, 409, "CONFLICT");
      expect(err.details).toEqual({ field: "email" });
      expect(r.text).not.toContain(first.id);
      expect(r.text).not.toContain("Secret Name");
      expect(setCookie(r.headers, "quire_refresh")).toBeUndefined();
    }
    expect(snapshot(server.services.db)).toBe(before);
  });

  test("terms_accepted must be true: false, missing or a string is 400 and creates nothing", async () => {
    const before = snapshot(server.services.db);
    for (const terms of [false, undefined, "true", 1, null]) {
      const input = body({ terms_accepted: terms });
      if (terms === undefined) delete (input as Record<string, unknown>).terms_accepted;
      const r = await new Client(server.url).post("/api/auth/register", input);
      expect(errorOf(r, 400, "VALIDATION_ERROR").details.field).toBe("terms_accepted");
    }
    expect(snapshot(server.services.db)).toBe(before);
  });

  test("passwords of 7 and 1025 characters are refused; exactly 8 and 1024 are accepted", async () => {
    const before = snapshot(server.services.db);
    for (const password of ["x".repeat(7), "x".repeat(1025), "é".repeat(7), ""]) {
      const r = await new Client(server.url).post("/api/auth/register", body({ password }));
      expect(errorOf(r, 400, "VALIDATION_ERROR").details.field).toBe("password");
    }
    expect(snapshot(server.services.db)).toBe(before);

    // Length counts characters, not bytes, and there are no character-class rules.
    for (const password of ["x".repeat(8), "y".repeat(1024), "é".repeat(8), "🔑".repeat(8)]) {
      const input = body({ password });
      const c = new Client(server.url);
      expect((await c.post("/api/auth/register", input)).status).toBe(201);
      const login = await new Client(server.url).post("/api/auth/login", { email: input.email, password });
      expect(login.status).toBe(200);
    }
  });

  test("registration is limited to 5 per hour per client address", async () => {
    const c = new Client(server.url);
    for (let i = 0; i < 5; i++) {
      const r = await c.post("/api/auth/register", body());
      expect(r.status).toBe(201);
    }
    const before = snapshot(server.services.db);
    const r = await c.post("/api/auth/register", body());
    errorOf(r, 429, "RATE_LIMITED");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(3000);
    expect(r.headers.get("x-ratelimit-limit")).toBe("5");
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(r.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect(snapshot(server.services.db)).toBe(before);
    // Another address is not affected.
    expect((await new Client(server.url).post("/api/auth/register", body())).status).toBe(201);
  });
});

describe("invite-only mode and https", () => {
  test("QUIRE_DISABLE_SIGNUP=true answers 403 SIGNUP_DISABLED and creates nothing", async () => {
    const closed = await startTestServer({ QUIRE_DISABLE_SIGNUP: "true" });
    try {
      const before = snapshot(closed.services.db);
      const r = await new Client(closed.url).post("/api/auth/register", body());
      errorOf(r, 403, "SIGNUP_DISABLED");
      expect(setCookie(r.headers, "quire_refresh")).toBeUndefined();
      // Even an invalid body gets the same answer: the mode is decided before the input.
      errorOf(await new Client(closed.url).post("/api/auth/register", {}), 403, "SIGNUP_DISABLED");
      expect(snapshot(closed.services.db)).toBe(before);
      expect(closed.services.db.query("SELECT COUNT(*) AS n FROM users").get()).toEqual({ n: 0 });
    } finally {
      await closed.close();
    }
  });

  test("with an https BASE_URL the refresh cookie is also Secure", async () => {
    const tls = await startTestServer({ BASE_URL: "https://docs.example.test" });
    try {
      const r = await new Client(tls.url).post("/api/auth/register", body());
      expect(r.status).toBe(201);
      const cookie = cookieAttributes(setCookie(r.headers, "quire_refresh")!);
      expect(cookie).toHaveProperty("secure");
      expect(cookie).toHaveProperty("httponly");
      expect(cookie.samesite?.toLowerCase()).toBe("strict");
    } finally {
      await tls.close();
    }
  });
});
