import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client, type ApiResponse } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";
import { credentialResolver } from "../../src/http/authenticate.ts";
import { expectError, logOf } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type Req = { method: string; path: string; json?: unknown };

/** Asserts the limit headers of a response counted against a rule of `limit`. */
function expectCounted(r: ApiResponse, limit: number, remaining: number, windowSec: number) {
  expect(r.status).not.toBe(429);
  expect(r.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(r.headers.get("x-ratelimit-remaining")).toBe(String(remaining));
  const reset = Number(r.headers.get("x-ratelimit-reset"));
  const now = Date.now() / 1000;
  expect(reset).toBeGreaterThan(now);
  expect(reset).toBeLessThanOrEqual(Math.ceil(now) + windowSec + 1);
}

/** 429 RATE_LIMITED in the error shape, with every limit header and Retry-After. */
function expectLimited(r: ApiResponse, limit: number, windowSec: number) {
  expectError(r, 429, "RATE_LIMITED");
  expect(r.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
  const retryAfter = Number(r.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSec);
  const reset = Number(r.headers.get("x-ratelimit-reset"));
  expect(Math.abs(reset - (Date.now() / 1000 + retryAfter))).toBeLessThanOrEqual(2);
}

/** Sends `limit` requests (each counted, none refused), then one more, which must be 429. */
async function exhaust(c: Client, req: Req, limit: number, windowSec: number): Promise<ApiResponse[]> {
  const seen: ApiResponse[] = [];
  for (let i = 0; i < limit; i++) {
    const r = await c.request(req.method, req.path, req.json === undefined ? {} : { json: req.json });
    expectCounted(r, limit, limit - 1 - i, windowSec);
    seen.push(r);
  }
  const over = await c.request(req.method, req.path, req.json === undefined ? {} : { json: req.json });
  expectLimited(over, limit, windowSec);
  return [...seen, over];
}

describe("the limits table of docs/interfaces.md §8, over HTTP", () => {
  test("auth endpoints: 20 per minute", async () => {
    const c = new Client(server.url);
    const seen = await exhaust(c, { method: "POST", path: "/api/auth/login", json: { email: "nobody@example.test", password: "wrong password" } }, 20, 60);
    expect(seen[0]!.status).toBe(401);
    // The limit covers every credential endpoint, not just the path that used it up.
    expectLimited(await c.post("/api/auth/refresh", {}), 20, 60);
    // Reading one's own session is a read, not a credential endpoint: not refused by this limit.
    expect((await c.get("/api/auth/me")).status).toBe(401);
    // Another client address is not affected.
    expect((await new Client(server.url).post("/api/auth/login", { email: "nobody@example.test", password: "x" })).status).toBe(401);
  });

  test("registration: 5 per hour per IP", async () => {
    const c = new Client(server.url);
    let n = 0;
    for (let i = 0; i < 5; i++) {
      const r = await c.post("/api/auth/register", { name: "R", email: `limit${++n}.${Date.now()}@example.test`, password: "long enough password", terms_accepted: true });
      expect(r.status).toBe(201);
      expectCounted(r, 5, 4 - i, 3600);
    }
    const over = await c.post("/api/auth/register", { name: "R", email: `limit-over.${Date.now()}@example.test`, password: "long enough password", terms_accepted: true });
    expectLimited(over, 5, 3600);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(3500);
    const users = server.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM users WHERE email LIKE 'limit-over.%'").get()!;
    expect(users.n).toBe(0);
  });

  test("password reset: 5 per 15 minutes", async () => {
    const c = new Client(server.url);
    const seen = await exhaust(c, { method: "POST", path: "/api/auth/forgot-password", json: { email: "someone@example.test" } }, 5, 900);
    expect(seen[0]!.status).toBe(200);
    expect(Number(seen[5]!.headers.get("retry-after"))).toBeGreaterThan(800);
    // reset-password shares the bucket
    expectLimited(await c.post("/api/auth/reset-password", { token: "t", new_password: "whatever password" }), 5, 900);
  });

  test("content read: 300 per minute, content write: 60 per minute, counted apart", async () => {
    const c = new Client(server.url);
    await exhaust(c, { method: "GET", path: "/api/v1/content/some-workspace/guide/intro.md" }, 300, 60);
    await exhaust(c, { method: "POST", path: "/api/v1/content/some-workspace/new-page.md", json: { title: "T" } }, 60, 60);
    expectLimited(await c.put("/api/v1/content/some-workspace/new-page.md", { body: "x" }), 60, 60);
    expectLimited(await c.delete("/api/v1/content/other/page.md"), 60, 60);
  });

  test("search: 60 per minute", async () => {
    const c = new Client(server.url);
    await exhaust(c, { method: "GET", path: "/api/v1/workspaces/01J00000000000000000000000/search?q=hello" }, 60, 60);
    // Other workspace endpoints are not search.
    expect((await c.get("/api/v1/workspaces/01J00000000000000000000000")).status).not.toBe(429);
  });

  test("git webhooks: 30 per minute", async () => {
    const c = new Client(server.url);
    await exhaust(c, { method: "POST", path: "/api/git/webhook/01J00000000000000000000000", json: { ref: "refs/heads/main" } }, 30, 60);
  });

  test("published docs: 600 per minute", async () => {
    const c = new Client(server.url);
    await exhaust(c, { method: "GET", path: "/p/some-site/getting-started" }, 600, 60);
  });

  test("data exports: 1 per 24 hours, and an export that was not made (here 404, Community) uses none of it", async () => {
    // The successful exports' daily limit is exercised in the Cloud edition: test/ops/export-limits.test.ts.
    const a = await registerUser(server.url);
    for (const path of ["/api/v1/users/me/export", "/api/v1/orgs/some-org/export"]) {
      for (let i = 0; i < 3; i++) {
        const r = await a.client.get(path);
        expectError(r, 404, "NOT_FOUND");
        expect(r.headers.get("x-ratelimit-limit")).toBe("1");
        expect(r.headers.get("x-ratelimit-remaining")).toBe("1");
      }
    }
  });

  test("a limited prefix is limited before routing: a path with no route answers 404 with the headers, then 429", async () => {
    const c = new Client(server.url);
    const seen = await exhaust(c, { method: "POST", path: "/api/auth/no-such-endpoint", json: {} }, 20, 60);
    for (const r of seen.slice(0, 20)) expectError(r, 404, "NOT_FOUND");
  });

  test("paths outside every rule carry no limit headers", async () => {
    const r = await new Client(server.url).get("/api/health");
    expect(r.headers.get("x-ratelimit-limit")).toBeNull();
    expect(r.headers.get("retry-after")).toBeNull();
  });
});

describe("who is counted", () => {
  test("signed-in people are counted each on their own: two users on one IP have separate buckets", async () => {
    const a = await registerUser(server.url);
    const b = await registerUser(server.url);
    const ip = a.client.ip;
    const asA = new Client(server.url, ip).withToken(a.accessToken);
    const asB = new Client(server.url, ip).withToken(b.accessToken);
    // A signed-in session's WebSocket cookie is a use of the session: its own 300 a minute.
    await exhaust(asA, { method: "POST", path: "/api/auth/ws-token" }, 300, 60);
    const r = await asB.post("/api/auth/ws-token");
    expect(r.status).toBe(204);
    expect(r.headers.get("x-ratelimit-remaining")).toBe("299");
    // Anonymous requests from that IP have their own (per-IP) bucket.
    expect((await new Client(server.url, ip).post("/api/auth/login", { email: "x@example.test", password: "y" })).status).toBe(401);
  });

  test("using one's session is not guessing: 40 boots (refresh by cookie, then ws-token) in a minute all pass, and passwords still meet the 20", async () => {
    const u = await registerUser(server.url);
    expect(u.client.cookies.has("quire_refresh")).toBe(true);
    for (let i = 0; i < 40; i++) {
      const refreshed = await u.client.post("/api/auth/refresh", {}, { token: null });
      expect(refreshed.status).toBe(200);
      expect(refreshed.headers.get("x-ratelimit-limit")).toBe("300");
      u.client.token = refreshed.body.access_token;
      expect((await u.client.post("/api/auth/ws-token")).status).toBe(204);
    }
    // The session's uses spent nothing of the credential allowance: 20 wrong passwords for this
    // account (the lockout answers after five) pass the limiter, the 21st to 25th are refused.
    const guesses: number[] = [];
    for (let i = 0; i < 25; i++) guesses.push((await u.client.post("/api/auth/change-password", { current_password: `wrong ${i}`, new_password: "another long password" })).status);
    expect(guesses.slice(0, 20).every((s) => s !== 429)).toBe(true);
    expect(guesses.slice(20).every((s) => s === 429)).toBe(true);
  });

  test("25 password attempts from one address meet a 429 after the 20th; a refresh without a stored token stays in that bucket", async () => {
    const c = new Client(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await c.post("/api/auth/login", { email: "someone@example.test", password: `guess ${i}` })).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    // A made-up refresh cookie proves no session: it is a guess, held to the address's 20.
    expectLimited(await c.post("/api/auth/refresh", {}, { headers: { cookie: "quire_refresh=made-up" } }), 20, 60);
  });

  test("reading one's own session (/me, /sessions) is not held to the auth limit: 60 boots of the app in a minute", async () => {
    const u = await registerUser(server.url);
    for (let i = 0; i < 60; i++) {
      expect((await u.client.get("/api/auth/me")).status).toBe(200);
      expect((await u.client.get("/api/auth/sessions")).status).toBe(200);
    }
  });

  test("two API keys of one organization share its bucket", async () => {
    const u = await registerUser(server.url);
    const k1 = (await u.client.post("/api/v1/api-keys", { name: "one" })).body.key as string;
    const k2 = (await u.client.post("/api/v1/api-keys", { name: "two" })).body.key as string;
    const page = `/api/v1/content/${u.workspaceSlug}/getting-started.md`;
    const r1 = await new Client(server.url).get(page, { token: k1 });
    const r2 = await new Client(server.url).get(page, { token: k2 });
    expect(r1.headers.get("x-ratelimit-limit")).toBe("300");
    expect(Number(r2.headers.get("x-ratelimit-remaining"))).toBe(Number(r1.headers.get("x-ratelimit-remaining")) - 1);
    // The person's own browser session is not charged for what the keys did.
    const own = await u.client.get(page);
    expect(own.headers.get("x-ratelimit-remaining")).toBe("299");
  });

  test("garbage credentials share the IP's bucket and create no buckets or cache entries of their own", async () => {
    const c = new Client(server.url);
    const limiter = server.services.rateLimiter;
    const cache = credentialResolver(server.services);
    const bucketsBefore = limiter.size;
    const cachedBefore = cache.cachedTokens;
    const garbage = (i: number) =>
      [
        `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ${i}In0.c2lnbmF0dXJl${i}`,
        `quire_live_${String(i).padStart(43, "A")}`,
        `quire_live_short${i}`,
        `not-a-token-${i}-${"z".repeat(i % 50)}`,
      ][i % 4]!;
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await c.post("/api/auth/ws-token", undefined, { token: garbage(i) })).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    // One bucket per rule that counts the address (the auth category's and the per-IP floor's),
    // however many credentials were tried.
    expect(limiter.size - bucketsBefore).toBeLessThanOrEqual(2);
    expect(cache.cachedTokens).toBe(cachedBefore);
  });

  test("sessions record the client address the limiter counts", async () => {
    const u = await registerUser(server.url);
    const login = await u.client.post("/api/auth/login", { email: u.email, password: u.password });
    const sessions = await u.client.get("/api/auth/sessions");
    expect(sessions.body.items.map((s: { ip: string }) => s.ip)).toContain(u.client.ip);
    expect((await logOf(server.logs, login.headers.get("x-request-id")!)).ip).toBe(u.client.ip);
  });
});

describe("TRUST_PROXY", () => {
  test("off: X-Forwarded-For is ignored, so spoofing it does not escape a limit", async () => {
    const direct = await startTestServer({ TRUST_PROXY: "false" });
    try {
      for (let i = 0; i < 5; i++) {
        const r = await new Client(direct.url, `203.0.113.${i + 1}`).post("/api/auth/register", {
          name: "S",
          email: `spoof${i}.${Date.now()}@example.test`,
          password: "long enough password",
          terms_accepted: true,
        });
        expect(r.status).toBe(201);
      }
      const r = await new Client(direct.url, "198.51.100.77").post("/api/auth/register", {
        name: "S",
        email: `spoof-over.${Date.now()}@example.test`,
        password: "long enough password",
        terms_accepted: true,
      });
      expectLimited(r, 5, 3600);
      const ips = direct.services.db.query<{ ip: string }, []>("SELECT DISTINCT ip FROM sessions").all();
      expect(ips).toEqual([{ ip: "127.0.0.1" }]);
    } finally {
      await direct.close();
    }
  });

  test("a hop count takes the address that many entries from the right", async () => {
    const proxied = await startTestServer({ TRUST_PROXY: "2" });
    try {
      // client-supplied junk, the real client, then the address the outer proxy saw
      const xff = "6.6.6.6, 192.0.2.10, 10.0.0.2";
      const c = new Client(proxied.url, xff);
      const r = await c.post("/api/auth/register", { name: "H", email: `hops.${Date.now()}@example.test`, password: "long enough password", terms_accepted: true });
      expect(r.status).toBe(201);
      const row = proxied.services.db.query<{ ip: string }, []>("SELECT ip FROM sessions").get();
      expect(row?.ip).toBe("192.0.2.10");
      expect((await logOf(proxied.logs, r.headers.get("x-request-id")!)).ip).toBe("192.0.2.10");
      // The same client behind a different outer hop shares its bucket.
      const again = await new Client(proxied.url, "7.7.7.7, 192.0.2.10, 10.0.0.3").post("/api/auth/login", { email: "n@example.test", password: "p" });
      expect(again.headers.get("x-ratelimit-remaining")).toBe("18");
    } finally {
      await proxied.close();
    }
  });
});
