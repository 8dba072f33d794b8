import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { cookieAttributes, errorOf, logIn, setCookie, signUp } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("me", () => {
  test("returns the current user without secrets; anonymous is 401", async () => {
    const u = await signUp(server.url, { name: "Grace Hopper" });
    const r = await u.client.get("/api/auth/me");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      user: {
        id: u.id,
        name: "Grace Hopper",
        email: u.email,
        email_verified: false,
        has_password: true,
        created_at: expect.any(String),
      },
    });
    expect(r.text).not.toContain("argon2");
    errorOf(await new Client(server.url).get("/api/auth/me"), 401, "UNAUTHORIZED");
  });

  test("an API key of the user also identifies them", async () => {
    const u = await signUp(server.url);
    const key = await u.client.post("/api/v1/api-keys", { name: "script" });
    const r = await new Client(server.url).get("/api/auth/me", { token: key.body.key });
    expect(r.status).toBe(200);
    expect(r.body.user.id).toBe(u.id);
  });
});

describe("sessions", () => {
  test("lists each device with its IP, creation and last activity, and flags the current one", async () => {
    const u = await signUp(server.url);
    const laptop = await logIn(server.url, u.email, u.password, "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0");
    const phone = await logIn(server.url, u.email, u.password, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0) Safari/604.1");

    const r = await laptop.client.get("/api/auth/sessions");
    expect(r.status).toBe(200);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.items).toHaveLength(3);
    for (const s of r.body.items) {
      expect(Object.keys(s).sort()).toEqual(["created_at", "current", "device", "id", "ip", "last_active_at"]);
      expect(Date.parse(s.created_at)).toBeGreaterThan(Date.now() - 60_000);
      expect(Date.parse(s.last_active_at)).toBeGreaterThanOrEqual(Date.parse(s.created_at));
    }
    const byDevice = new Map(r.body.items.map((s: any) => [s.device, s]));
    const l: any = byDevice.get("Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0");
    const p: any = byDevice.get("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0) Safari/604.1");
    expect(l.ip).toBe(laptop.client.ip);
    expect(p.ip).toBe(phone.client.ip);
    expect(l.current).toBe(true);
    expect(p.current).toBe(false);
    expect(r.body.items.filter((s: any) => s.current)).toHaveLength(1);

    // From the phone, the phone is current.
    const fromPhone = await phone.client.get("/api/auth/sessions");
    expect(fromPhone.body.items.find((s: any) => s.current).device).toContain("iPhone");

    // Another user's sessions never show up.
    const other = await signUp(server.url);
    const theirs = await other.client.get("/api/auth/sessions");
    expect(theirs.body.items).toHaveLength(1);
    expect(theirs.body.items[0].current).toBe(true);
  });

  test("last activity moves when the session is used", async () => {
    const u = await signUp(server.url);
    const phone = await logIn(server.url, u.email, u.password, "Phone");
    const old = "2020-01-01T00:00:00.000Z";
    server.services.db.query("UPDATE sessions SET last_active_at = ? WHERE user_id = ?").run(old, u.id);
    const r = await phone.client.post("/api/auth/refresh", { refresh_token: phone.refreshToken });
    expect(r.status).toBe(200);
    const list = await new Client(server.url).get("/api/auth/sessions", { token: r.body.access_token });
    const item = list.body.items.find((s: any) => s.device === "Phone");
    expect(Date.parse(item.last_active_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(item.current).toBe(true);
    expect(list.body.items.find((s: any) => s.device !== "Phone").last_active_at).toBe(old);
  });

  test("anonymous and API-key callers are 401: sessions belong to signed-in devices", async () => {
    errorOf(await new Client(server.url).get("/api/auth/sessions"), 401, "UNAUTHORIZED");
    const u = await signUp(server.url);
    const key = await u.client.post("/api/v1/api-keys", { name: "reader", scopes: ["read"] });
    errorOf(await new Client(server.url).get("/api/auth/sessions", { token: key.body.key }), 401, "UNAUTHORIZED");
  });
});

describe("ws-token", () => {
  test("204 and an HttpOnly SameSite=Strict quire_ws_token cookie valid for one hour", async () => {
    const u = await signUp(server.url);
    const r = await u.client.post("/api/auth/ws-token");
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    const raw = setCookie(r.headers, "quire_ws_token");
    expect(raw).toBeDefined();
    const cookie = cookieAttributes(raw!);
    expect(cookie).toHaveProperty("httponly");
    expect(cookie.samesite?.toLowerCase()).toBe("strict");
    expect(cookie["max-age"]).toBe("3600");
    expect(cookie.path).toBe("/ws");
    // The cookie holds a WebSocket token for this user and session.
    const claims = await server.services.tokens.verifyWs(decodeURIComponent(cookie.value));
    expect(claims?.userId).toBe(u.id);
    const session = server.services.db.query<{ id: string }, [string]>("SELECT id FROM sessions WHERE user_id = ?").get(u.id)!;
    expect(claims?.sessionId).toBe(session.id);
  });

  test("an API key cannot get one, nor can an anonymous caller", async () => {
    const u = await signUp(server.url);
    const key = await u.client.post("/api/v1/api-keys", { name: "bot", scopes: ["admin"] });
    const withKey = await new Client(server.url).post("/api/auth/ws-token", undefined, { token: key.body.key });
    errorOf(withKey, 401, "UNAUTHORIZED");
    expect(setCookie(withKey.headers, "quire_ws_token")).toBeUndefined();
    const anon = await new Client(server.url).post("/api/auth/ws-token");
    errorOf(anon, 401, "UNAUTHORIZED");
    expect(setCookie(anon.headers, "quire_ws_token")).toBeUndefined();
  });
});
