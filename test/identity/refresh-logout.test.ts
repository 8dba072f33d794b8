import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { cookieAttributes, errorOf, logIn, setCookie, signUp } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const refresh = (token: string, client = new Client(server.url)) => client.post("/api/auth/refresh", { refresh_token: token });
const me = (accessToken: string) => new Client(server.url).get("/api/auth/me", { token: accessToken });
const sessionCount = (userId: string) =>
  server.services.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").get(userId)!.n;

describe("refresh", () => {
  test("rotates: a new pair is issued, the old refresh token is dead, the session stays the same", async () => {
    const u = await signUp(server.url);
    const first = await logIn(server.url, u.email, u.password);
    const r = await refresh(first.refreshToken);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 900 });
    expect(r.body.refresh_token).not.toBe(first.refreshToken);
    expect(cookieAttributes(setCookie(r.headers, "quire_refresh")!).value).toBe(r.body.refresh_token);
    expect((await me(r.body.access_token)).status).toBe(200);
    // Still two sessions (registration + login): refreshing does not open a new one.
    expect(sessionCount(u.id)).toBe(2);
    // The stored token is a hash, never the token itself.
    const stored = server.services.db.query<{ token_hash: string }, []>("SELECT token_hash FROM refresh_tokens").all();
    expect(stored.some((row) => row.token_hash === r.body.refresh_token)).toBe(false);

    // The new token rotates in turn.
    const again = await refresh(r.body.refresh_token);
    expect(again.status).toBe(200);
  });

  test("reusing a rotated token revokes every session of the user, so their access tokens stop working", async () => {
    const u = await signUp(server.url);
    const laptop = await logIn(server.url, u.email, u.password, "Laptop");
    const phone = await logIn(server.url, u.email, u.password, "Phone");
    const rotated = await refresh(laptop.refreshToken);
    expect(rotated.status).toBe(200);
    expect((await me(rotated.body.access_token)).status).toBe(200);

    // Someone replays the old laptop token (stolen before it was rotated).
    const replay = await refresh(laptop.refreshToken);
    errorOf(replay, 401, "UNAUTHORIZED");
    expect(sessionCount(u.id)).toBe(0);
    for (const token of [rotated.body.access_token, phone.accessToken, u.accessToken]) {
      errorOf(await me(token), 401, "UNAUTHORIZED");
    }
    errorOf(await refresh(rotated.body.refresh_token), 401, "UNAUTHORIZED");
    errorOf(await refresh(phone.refreshToken), 401, "UNAUTHORIZED");
    // The password still works: the owner signs in again.
    expect((await logIn(server.url, u.email, u.password)).accessToken).toBeTruthy();
  });

  test("two concurrent refreshes of one token: exactly one succeeds", async () => {
    const u = await signUp(server.url);
    const s = await logIn(server.url, u.email, u.password);
    const results = await Promise.all([refresh(s.refreshToken), refresh(s.refreshToken)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 401]);
    // The loser is a replay of a rotated token, which the specification treats as theft.
    expect(sessionCount(u.id)).toBe(0);
  });

  test("the refresh token can come from the HttpOnly cookie instead of the body", async () => {
    const u = await signUp(server.url);
    const browser = new Client(server.url);
    const login = await browser.post("/api/auth/login", { email: u.email, password: u.password });
    const firstCookie = browser.cookies.get("quire_refresh");
    expect(firstCookie).toBe(login.body.refresh_token);

    const r = await browser.post("/api/auth/refresh");
    expect(r.status).toBe(200);
    const secondCookie = browser.cookies.get("quire_refresh");
    expect(secondCookie).toBe(r.body.refresh_token);
    expect(secondCookie).not.toBe(firstCookie);
    expect((await me(r.body.access_token)).status).toBe(200);

    // An empty JSON body also falls back to the cookie.
    const r2 = await browser.post("/api/auth/refresh", {});
    expect(r2.status).toBe(200);
  });

  test("no token, an unknown token or an expired one is 401 and clears the cookie", async () => {
    errorOf(await new Client(server.url).post("/api/auth/refresh"), 401, "UNAUTHORIZED");
    const garbage = await refresh("this-is-not-a-refresh-token");
    errorOf(garbage, 401, "UNAUTHORIZED");
    const cleared = cookieAttributes(setCookie(garbage.headers, "quire_refresh")!);
    expect(cleared.value).toBe("");
    expect(cleared["max-age"]).toBe("0");

    const u = await signUp(server.url);
    const s = await logIn(server.url, u.email, u.password);
    server.services.db.query("UPDATE refresh_tokens SET expires_at = ? WHERE user_id = ?").run(Date.now() - 1000, u.id);
    errorOf(await refresh(s.refreshToken), 401, "UNAUTHORIZED");
  });
});

describe("logout", () => {
  test("revokes every session on every device; unexpired access tokens are refused at once", async () => {
    const u = await signUp(server.url);
    const laptop = await logIn(server.url, u.email, u.password, "Laptop");
    const phone = await logIn(server.url, u.email, u.password, "Phone");
    const other = await signUp(server.url);
    expect(sessionCount(u.id)).toBe(3);

    const r = await laptop.client.post("/api/auth/logout");
    expect(r.status).toBe(204);
    const cleared = cookieAttributes(setCookie(r.headers, "quire_refresh")!);
    expect(cleared["max-age"]).toBe("0");

    expect(sessionCount(u.id)).toBe(0);
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM refresh_tokens WHERE user_id = ?").get(u.id)).toEqual({ n: 0 });
    for (const token of [laptop.accessToken, phone.accessToken, u.accessToken]) {
      errorOf(await me(token), 401, "UNAUTHORIZED");
    }
    for (const token of [laptop.refreshToken, phone.refreshToken]) {
      errorOf(await refresh(token), 401, "UNAUTHORIZED");
    }
    // Other people are not signed out.
    expect((await me(other.accessToken)).status).toBe(200);
    // Logging out again with the dead token is 401.
    errorOf(await laptop.client.post("/api/auth/logout"), 401, "UNAUTHORIZED");
  });

  test("needs a signed-in session: no credential or an API key is 401 and signs nobody out", async () => {
    errorOf(await new Client(server.url).post("/api/auth/logout"), 401, "UNAUTHORIZED");
    const u = await signUp(server.url);
    const key = await u.client.post("/api/v1/api-keys", { name: "ci" });
    expect(key.status).toBe(201);
    errorOf(await new Client(server.url).post("/api/auth/logout", undefined, { token: key.body.key }), 401, "UNAUTHORIZED");
    expect(sessionCount(u.id)).toBe(1);
    expect((await me(u.accessToken)).status).toBe(200);
  });
});
