/**
 * The per-IP floor: every request without a verified caller (no credentials, or credentials that
 * do not verify) counts against one bucket per client address, on every path, on top of the
 * category rules of the limits table of docs/interfaces.md §8.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client, type ApiResponse } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";
import { ANONYMOUS_FLOOR } from "../../src/core/rate-limit.ts";
import { expectError } from "./support.ts";

const FLOOR = 600;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A different garbage credential each time, of every shape a client might send. */
const garbage = (i: number) =>
  [
    `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ${i}In0.c2lnbmF0dXJl${i}`,
    `quire_live_${String(i).padStart(43, "A")}`,
    `not-a-token-${i}`,
  ][i % 3]!;

function expectFloorRefusal(r: ApiResponse) {
  expectError(r, 429, "RATE_LIMITED");
  expect(r.headers.get("x-ratelimit-limit")).toBe(String(FLOOR));
  expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
  const retryAfter = Number(r.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(Math.abs(Number(r.headers.get("x-ratelimit-reset")) - (Date.now() / 1000 + retryAfter))).toBeLessThanOrEqual(2);
  expect(r.headers.get("x-request-id")).toBe(r.body.request_id);
  expect(r.headers.get("x-content-type-options")).toBe("nosniff");
}

test("the floor is 600 per minute per IP, the figure the decision record and README give", () => {
  expect({ limit: ANONYMOUS_FLOOR.limit, windowSec: ANONYMOUS_FLOOR.windowSec, keyBy: ANONYMOUS_FLOOR.keyBy }).toEqual({
    limit: FLOOR,
    windowSec: 60,
    keyBy: "ip",
  });
});

test("garbage tokens on many paths share one per-IP floor: 600 are answered, then 429 with the limit headers", async () => {
  const c = new Client(server.url);
  // Paths outside every category rule, the WebSocket endpoint, and paths that are free without
  // credentials (health, static files, published sites): with a bad credential they all count.
  const paths = [
    "/api/v1/workspaces",
    "/api/v1/api-keys",
    "/api/ready",
    "/ws",
    "/api/v1/orgs/some-org",
    "/api/health",
    "/_app/main-doesnotexist.js",
    "/p/some-site/page",
  ];
  for (let i = 0; i < FLOOR; i++) {
    const r = await c.get(paths[i % paths.length]!, { token: garbage(i) });
    expect(r.status).not.toBe(429);
    // The floor is the tightest rule on every one of these paths, so its figures are reported.
    expect(r.headers.get("x-ratelimit-limit")).toBe(String(FLOOR));
    expect(r.headers.get("x-ratelimit-remaining")).toBe(String(FLOOR - 1 - i));
  }
  for (const [i, path] of paths.entries()) expectFloorRefusal(await c.get(path, { token: garbage(FLOOR + i) }));

  // The same address without any credentials shares the bucket...
  expectFloorRefusal(await c.get("/api/v1/workspaces"));
  expectFloorRefusal(await c.post("/api/v1/api-keys", { name: "k" }));
  expectFloorRefusal(await c.get("/login"));
  // ...except where a request with no credentials at all is free: the liveness check and
  // published sites (their own 600/min rule) still answer.
  const health = await c.get("/api/health");
  expect(health.status).toBe(200);
  expect(health.headers.get("x-ratelimit-limit")).toBeNull();
  const published = await c.get("/p/some-site/page");
  expect(published.status).not.toBe(429);
  expect(published.headers.get("x-ratelimit-limit")).toBe("600");
  expect(Number(published.headers.get("x-ratelimit-remaining"))).toBeGreaterThan(500);

  // Another address is not affected.
  const other = await new Client(server.url).get("/api/v1/workspaces", { token: garbage(9999) });
  expectError(other, 401, "UNAUTHORIZED");
  expect(other.headers.get("x-ratelimit-remaining")).toBe(String(FLOOR - 1));
});

test("authenticated traffic is not counted against the floor, even from an address that used it up", async () => {
  const u = await registerUser(server.url);
  const key = (await u.client.post("/api/v1/api-keys", { name: "floor" })).body.key as string;
  const ip = u.client.ip;
  const anon = new Client(server.url, ip);
  // Signing up counted too (it was anonymous), so send until refused.
  let sent = 0;
  let r = await anon.get("/api/v1/workspaces", { token: garbage(0) });
  while (r.status !== 429) {
    expect(r.status).toBe(401);
    sent++;
    r = await anon.get("/api/v1/workspaces", { token: garbage(sent) });
  }
  expectFloorRefusal(r);
  expect(sent).toBeGreaterThan(FLOOR - 5);
  expect(sent).toBeLessThanOrEqual(FLOOR);
  expectFloorRefusal(await anon.get("/api/v1/workspaces"));

  for (const token of [u.accessToken, key]) {
    for (let i = 0; i < 5; i++) {
      const r = await new Client(server.url, ip).get("/api/v1/workspaces", { token });
      expect(r.status).toBe(200);
      // No rule applies to an authenticated caller here, so no limit headers.
      expect(r.headers.get("x-ratelimit-limit")).toBeNull();
    }
  }
  // The refusal is still in force for the anonymous ones.
  expectFloorRefusal(await anon.get("/api/ready"));
});

test("the web app's static files are not starved: loading them never counts, and a used-up floor does not block them", async () => {
  const c = new Client(server.url);
  const shell = await c.get("/");
  expect(shell.status).toBe(200);
  expect(shell.headers.get("x-ratelimit-remaining")).toBe(String(FLOOR - 1));
  const assets = [...shell.text.matchAll(/(?:src|href)="(\/_app\/[^"]+)"/g)].map((m) => m[1]!);
  expect(assets.length).toBeGreaterThan(0);
  // Far more asset loads than the floor allows requests: none is counted.
  for (let i = 0; i < FLOOR + 50; i++) {
    const r = await c.get(assets[i % assets.length]!);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-ratelimit-limit")).toBeNull();
  }
  expect((await c.get("/api/auth/config")).headers.get("x-ratelimit-remaining")).not.toBe("0");
  const next = await c.get("/api/v1/workspaces");
  expect(next.headers.get("x-ratelimit-remaining")).toBe(String(FLOOR - 3));

  // With the floor used up, the files still load (a signed-in browser fetches them without a token).
  for (let i = 0; i < FLOOR; i++) await c.get("/api/v1/workspaces", { token: garbage(i) });
  expectFloorRefusal(await c.get("/api/v1/workspaces"));
  for (const asset of assets) expect((await c.get(asset)).status).toBe(200);
});
