/**
 * An anonymous reader's GET of a published page is answered by the server's own `/p/*` route
 * (http/site-fast-path.ts), not the framework's hook chain; what it leaves behind must be the same:
 * the security headers (and a public page without any header of its own request, which a shared
 * cache would repeat to every reader), the request log line, and the metrics under the route
 * template. A query string sends the same request through the framework, for comparison.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { get, publish, writePage } from "../publish/site/support.ts";

let server: TestServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startTestServer({ FF_METRICS: "true" });
  owner = await registerUser(server.url);
  await publish(owner);
  await writePage(owner, "guide.md", { title: "Guide", body: "# Guide\n\nRead me.\n" });
}, 30_000);
afterAll(() => server?.close());

const names = (h: Headers) => [...h.keys()].sort();

test("a published page answers with the same headers, log line and metrics on either path", async () => {
  const page = `/p/${owner.workspaceSlug}/guide`;
  const reader = "10.77.0.9";
  const direct = await get(server, page, { "user-agent": "Mozilla/5.0", "x-forwarded-for": reader });
  const routed = await get(server, `${page}?from=test`, { "user-agent": "Mozilla/5.0" });
  expect(direct.status).toBe(200);
  expect(routed.status).toBe(200);
  expect(direct.text).toBe(routed.text);
  expect(names(direct.headers)).toEqual(names(routed.headers));
  for (const name of ["x-content-type-options", "content-security-policy", "referrer-policy", "etag", "cache-control", "vary"]) {
    expect(direct.headers.get(name)).toBeTruthy();
  }
  for (const name of ["content-security-policy", "etag", "cache-control", "vary"]) expect(direct.headers.get(name)).toBe(routed.headers.get(name));

  // The 304 of a revalidation, and HEAD, take the same lane.
  const again = await get(server, page, { "if-none-match": direct.headers.get("etag")! });
  expect(again.status).toBe(304);
  expect(again.headers.get("content-security-policy")).toBe(direct.headers.get("content-security-policy"));
  const head = await fetch(server.url + page, { method: "HEAD", headers: { "x-forwarded-for": "10.77.0.1" } });
  expect(head.status).toBe(200);
  expect((await head.arrayBuffer()).byteLength).toBe(0);

  // The public page's response names no request; its log line still has an id of its own.
  let line: Record<string, unknown> | undefined;
  for (let i = 0; i < 50 && !line; i++) {
    line = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.ip === reader && l.msg === "request");
    if (!line) await Bun.sleep(20);
  }
  expect(line).toMatchObject({ method: "GET", path: page, status: 200 });
  expect(line!.request_id).toBeTruthy();
  expect(typeof line!.ms).toBe("number");

  const key = await owner.client.post("/api/v1/api-keys", { name: "scrape", scopes: ["admin"] });
  const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${key.body.key}` } });
  const text = await metrics.text();
  expect(text).toContain('quire_http_requests_total{route="/p/*",method="GET",status="200"} 2');
  expect(text).toContain('quire_http_requests_total{route="/p/*",method="GET",status="304"} 1');
  expect(text).toContain('quire_http_requests_total{route="/p/*",method="HEAD",status="200"} 1');
  expect(text).toContain('quire_http_request_duration_seconds_count{route="/p/*",method="GET"} 3');
});

test("a public page carries nothing of its own request; an answer no shared cache may keep carries its id and rate-limit state", async () => {
  const page = `/p/${owner.workspaceSlug}/guide`;
  for (const path of [page, `${page}?from=test`]) {
    const open = await get(server, path, { "user-agent": "Mozilla/5.0" });
    expect(open.headers.get("cache-control")).toStartWith("public");
    for (const name of ["x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) expect(open.headers.get(name)).toBeNull();
    // A revalidation updates what a cache stored with the 304's headers: none of one request's either.
    const revalidated = await get(server, path, { "if-none-match": open.headers.get("etag")! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("x-request-id")).toBeNull();
    expect(revalidated.headers.get("x-ratelimit-remaining")).toBeNull();

    // A cookie names a reader: private, and answered as any other request is, with its own headers.
    const named = await get(server, path, { cookie: "theme=dark", "x-forwarded-for": "10.77.1.1" });
    expect(named.status).toBe(200);
    expect(named.headers.get("cache-control")).toBe("private, no-store");
    expect(named.headers.get("x-request-id")).toBeTruthy();
    expect(named.headers.get("x-ratelimit-limit")).toBe("600");
    expect(Number(named.headers.get("x-ratelimit-remaining"))).toBeLessThan(600);
    // A page that does not exist is not stored either.
    const missing = await get(server, `/p/${owner.workspaceSlug}/no-such-page${path === page ? "" : "?from=test"}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toBeTruthy();
    expect(missing.headers.get("x-ratelimit-limit")).toBe("600");
  }
});

test("the site's limit counts public pages though their responses do not show it", async () => {
  const page = `/p/${owner.workspaceSlug}/guide`;
  for (let i = 0; i < 599; i++) expect((await get(server, page, { "x-forwarded-for": "10.88.1.1" })).status).toBe(200);
  const named = await get(server, page, { "x-forwarded-for": "10.88.1.1", cookie: "theme=dark" });
  expect(named.headers.get("x-ratelimit-remaining")).toBe("0");
  expect((await get(server, page, { "x-forwarded-for": "10.88.1.1" })).status).toBe(429);
});

test("over the site's limit, the direct lane answers 429 in the API's error shape", async () => {
  const page = `/p/${owner.workspaceSlug}/guide`;
  let last: Awaited<ReturnType<typeof get>> | undefined;
  for (let i = 0; i < 601; i++) last = await get(server, page, { "x-forwarded-for": "10.88.0.1" });
  expect(last!.status).toBe(429);
  expect(last!.headers.get("retry-after")).toBeTruthy();
  expect(last!.headers.get("x-content-type-options")).toBe("nosniff");
  const body = JSON.parse(last!.text);
  expect(body.error).toBe("RATE_LIMITED");
  expect(body.request_id).toBe(last!.headers.get("x-request-id"));
});
