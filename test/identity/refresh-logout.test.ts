import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { cookieAttributes, errorOf, logIn, setCookie, signUp } from "./support.ts";
import { REFRESH_GRACE_MS } from "../../src/identity/sessions.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
// Some tests move the clock past the grace window (REFRESH_GRACE_MS); the server reads the same clock.
afterEach(() => setSystemTime());
const pastGraceWindow = () => setSystemTime(new Date(Date.now() + REFRESH_GRACE_MS + 1000));

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

  test("reusing a rotated token after the grace window revokes every session of the user, so their access tokens stop working", async () => {
    const u = await signUp(server.url);
    const laptop = await logIn(server.url, u.email, u.password, "Laptop");
    const phone = await logIn(server.url, u.email, u.password, "Phone");
    const rotated = await refresh(laptop.refreshToken);
    expect(rotated.status).toBe(200);
    expect((await me(rotated.body.access_token)).status).toBe(200);

    // Someone replays the old laptop token (stolen before it was rotated), after the grace window.
    pastGraceWindow();
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

  test("four concurrent refreshes of one token (tabs restored together) all get the same successor; the session lives on", async () => {
    const u = await signUp(server.url);
    const s = await logIn(server.url, u.email, u.password);
    const results = await Promise.all([1, 2, 3, 4].map(() => refresh(s.refreshToken)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const successors = new Set(results.map((r) => r.body.refresh_token));
    expect(successors.size).toBe(1);
    expect([...successors][0]).not.toBe(s.refreshToken);
    for (const r of results) expect((await me(r.body.access_token)).status).toBe(200);
    expect(sessionCount(u.id)).toBe(2);
    // The one successor rotates normally, once.
    const next = await refresh([...successors][0]!);
    expect(next.status).toBe(200);
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM refresh_tokens WHERE user_id = ?").get(u.id)).toEqual({ n: 4 });
  });

  test("within the window a token rotated twice leads to the live successor, never to a used one", async () => {
    const u = await signUp(server.url);
    const s = await logIn(server.url, u.email, u.password);
    const first = await refresh(s.refreshToken);
    const second = await refresh(first.body.refresh_token);
    const late = await refresh(s.refreshToken);
    expect(late.status).toBe(200);
    expect(late.body.refresh_token).toBe(second.body.refresh_token);
    expect(sessionCount(u.id)).toBe(2);
  });

  test("a reuse just inside the window is the same successor; one just after it revokes", async () => {
    const u = await signUp(server.url);
    const s = await logIn(server.url, u.email, u.password);
    const t0 = Date.now();
    const first = await refresh(s.refreshToken);
    setSystemTime(new Date(t0 + REFRESH_GRACE_MS - 2000));
    const inside = await refresh(s.refreshToken);
    expect(inside.status).toBe(200);
    expect(inside.body.refresh_token).toBe(first.body.refresh_token);
    setSystemTime(new Date(t0 + REFRESH_GRACE_MS + 2000));
    errorOf(await refresh(s.refreshToken), 401, "UNAUTHORIZED");
    expect(sessionCount(u.id)).toBe(0);
    errorOf(await refresh(first.body.refresh_token), 401, "UNAUTHORIZED");
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
