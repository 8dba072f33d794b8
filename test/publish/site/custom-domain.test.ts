/**
 * A verified custom domain's requests are the site's, by Host, and are answered before routing;
 * they still leave what every request leaves: the request log line and the metrics (under their
 * own route template, `/* (custom domain)`), as a `/p/` request does. A members-only site on its
 * domain is opened by a sign-in hand-off from the instance: a one-time token for the domain's
 * own cookie.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTxtDns, type TxtDns } from "../../helpers/txt-dns.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { nextIp } from "../../helpers/client.ts";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { publish, verifyDomain, writePage } from "./support.ts";

let dns: TxtDns;
let server: TestServer;
let owner: TestUser;
const DOMAIN = "docs.custom.example.test";

beforeAll(async () => {
  dns = await startTxtDns();
  server = await startTestServer({ CUSTOM_DOMAIN_RESOLVER: dns.resolver, QUIRE_WATCH_FILES: "false", FF_METRICS: "true" });
  owner = await registerUser(server.url);
  await publish(owner);
  await writePage(owner, "guide.md", { title: "Guide", body: "# Guide\n\nhow to begin\n" });
  await verifyDomain(owner, dns, DOMAIN);
}, 30_000);
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

async function onDomain(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url + path, { headers: { host: DOMAIN, "x-forwarded-for": nextIp(), "user-agent": "Mozilla/5.0", ...headers }, redirect: "manual" });
}

async function logLine(requestId: string, path?: string): Promise<Record<string, unknown> | undefined> {
  for (let i = 0; i < 50; i++) {
    const line = server.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === "request" && (path === undefined ? l.request_id === requestId : l.path === path && l.ip === requestId));
    if (line) return line;
    await Bun.sleep(20);
  }
  return undefined;
}

test("a page on a verified custom domain leaves its log line and is counted in the metrics", async () => {
  const reader = nextIp();
  const page = await onDomain("/guide", { "x-forwarded-for": reader });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("how to begin");
  expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  // A public page is what a shared cache stores for every reader: nothing of one request's own.
  expect(page.headers.get("cache-control")).toStartWith("public");
  expect(page.headers.get("x-request-id")).toBeNull();
  expect(page.headers.get("x-ratelimit-limit")).toBeNull();
  const line = await logLine(reader, "/guide");
  expect(line).toMatchObject({ method: "GET", path: "/guide", status: 200 });
  expect(line!.request_id).toBeTruthy();
  expect(typeof line!.ms).toBe("number");

  // A revalidation (304) and a missing page (404) are counted too, each under its status.
  expect((await onDomain("/guide", { "if-none-match": page.headers.get("etag")! })).status).toBe(304);
  const missing = await onDomain("/no-such-page");
  expect(missing.status).toBe(404);
  expect(await logLine(missing.headers.get("x-request-id")!)).toMatchObject({ method: "GET", path: "/no-such-page", status: 404 });

  const key = await owner.client.post("/api/v1/api-keys", { name: "scrape", scopes: ["admin"] });
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${key.body.key}` } })).text();
  expect(text).toContain('quire_http_requests_total{route="/* (custom domain)",method="GET",status="200"} 1');
  expect(text).toContain('quire_http_requests_total{route="/* (custom domain)",method="GET",status="304"} 1');
  expect(text).toContain('quire_http_requests_total{route="/* (custom domain)",method="GET",status="404"} 1');
  expect(text).toContain('quire_http_request_duration_seconds_count{route="/* (custom domain)",method="GET"} 3');
});

test("a request naming a registered but unverified domain is served nothing, and still logged", async () => {
  const other = await registerUser(server.url);
  await publish(other);
  const pending = "pending.custom.example.test";
  const set = await other.client.put(`/api/v1/workspaces/${other.workspaceId}/custom-domain`, { domain: pending });
  expect(set.body.status).not.toBe("verified");
  const res = await fetch(server.url + "/guide", { headers: { host: pending, "x-forwarded-for": nextIp() } });
  expect(res.status).toBe(404);
  expect(await logLine(res.headers.get("x-request-id")!)).toMatchObject({ method: "GET", path: "/guide", status: 404 });
});

test("the site's MCP endpoint answers at /mcp on the verified domain, with the domain's URLs, and is named there", async () => {
  // The SDK's client, every request carrying the domain's Host (as a reader's assistant would reach it).
  const viaDomain: typeof fetch = Object.assign(
    (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set("host", DOMAIN);
      return fetch(input, { ...init, headers });
    },
    { preconnect: fetch.preconnect },
  );
  const client = new Client({ name: "site-reader", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { fetch: viaDomain }));
  const list = (await client.callTool({ name: "site_list_pages", arguments: {} })) as { content: Array<{ text: string }> };
  expect(list.content[0]!.text).toContain(`https://${DOMAIN}/guide`);
  expect(list.content[0]!.text).not.toContain("/p/");
  const read = (await client.callTool({ name: "site_read_page", arguments: { path: "guide.md" } })) as { content: Array<{ text: string }> };
  expect(read.content[0]!.text).toContain("how to begin");
  await client.close();

  // Counted and logged as the domain's other requests; the per-IP floor's headers are on it.
  const raw = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { host: DOMAIN, "x-forwarded-for": nextIp(), "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  expect(raw.status).toBe(200);
  expect(raw.headers.get("x-ratelimit-limit")).toBe("600");
  expect(raw.headers.get("x-content-type-options")).toBe("nosniff");
  expect(await logLine(raw.headers.get("x-request-id")!)).toMatchObject({ method: "POST", path: "/mcp", status: 200 });

  // Discovery on the domain names the domain's endpoint.
  expect(await (await onDomain("/llms.txt")).text()).toContain(`MCP server: [https://${DOMAIN}/mcp]`);
  const page = await (await onDomain("/guide")).text();
  expect(page).toContain(`<link rel="mcp" href="https://${DOMAIN}/mcp"`);
  expect(page).toContain(`data-copy="https://${DOMAIN}/mcp"`);
  expect((await onDomain("/mcp", { accept: "text/event-stream" })).status).toBe(405);
});

test("a members-only site's /mcp on its domain is 404 in the API's error shape for an anonymous client", async () => {
  const other = await registerUser(server.url);
  await writePage(other, "inside.md", { title: "Inside", body: "closed okapi text" });
  await publish(other, { visibility: "authenticated" });
  const domain = "closed.custom.example.test";
  await verifyDomain(other, dns, domain);
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { host: domain, "x-forwarded-for": nextIp(), "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "site_read_page", arguments: { path: "inside.md" } } }),
  });
  expect(res.status).toBe(404);
  const body = (await res.json()) as { error: string; request_id: string };
  expect(body.error).toBe("NOT_FOUND");
  expect(body.request_id).toBe(res.headers.get("x-request-id")!);
  expect(JSON.stringify(body)).not.toContain("okapi");
  expect(await logLine(res.headers.get("x-request-id")!)).toMatchObject({ method: "POST", path: "/mcp", status: 404 });
});

describe("signing in to a members-only site on its custom domain", () => {
  const siteCookie = async (user: TestUser) => {
    const r = await user.client.post("/api/v1/site-session");
    expect(r.status).toBe(204);
    return r.headers.getSetCookie().find((c) => c.startsWith("quire_site="))!.split(";")[0]!;
  };
  const base = () => server.services.config.baseUrl;
  /** The domain's first step: a state cookie for this browser and the way to the instance. */
  const begin = async (next = "/guide") => {
    const res = await onDomain(`/_quire/sign-in?next=${encodeURIComponent(next)}`);
    expect(res.status).toBe(302);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith("quire_handoff="))!;
    const location = res.headers.get("location")!;
    expect(location.startsWith(`${base()}/p/${owner.workspaceSlug}/_quire/sign-in?`)).toBe(true);
    return { setCookie, state: setCookie.split(";")[0]!, instancePath: location.slice(base().length) };
  };
  /** The instance's step, as the member's browser makes it (with or without the members' cookie). */
  const atInstance = async (path: string, cookie: string | null) => {
    const res = await fetch(server.url + path, { headers: { "x-forwarded-for": nextIp(), ...(cookie ? { cookie } : {}) }, redirect: "manual" });
    return { status: res.status, location: res.headers.get("location"), headers: res.headers };
  };
  /** The whole way for `user` until the token's URL on the domain; returns it with the browser's state cookie. */
  const handOff = async (user: TestUser, next = "/guide") => {
    const first = await begin(next);
    const second = await atInstance(first.instancePath, await siteCookie(user));
    return { ...second, state: first.state };
  };
  const exchange = (target: URL, state: string | null) => onDomain(`${target.pathname}${target.search}`, state ? { cookie: state } : {});

  beforeAll(async () => {
    await publish(owner, { visibility: "authenticated" });
  });

  test("an anonymous reader on the domain is sent through the instance's sign-in, and back to the page", async () => {
    const res = await onDomain("/guide");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/_quire/sign-in?next=%2Fguide");
    const { setCookie, instancePath } = await begin();
    expect(setCookie).toMatch(/; Path=\/_quire\/;/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(instancePath).toMatch(/^\/p\/[a-z0-9-]+\/_quire\/sign-in\?next=%2Fguide&state=[A-Za-z0-9_-]{32}$/);
    // On the instance, without the members' cookie, that is the app's sign-in, which comes back here.
    const signedOut = await atInstance(instancePath, null);
    expect(signedOut.status).toBe(302);
    expect(signedOut.location).toBe(`/login?next=${encodeURIComponent(instancePath)}`);
    // A link straight to the instance (no state) is sent to the domain to begin there.
    const direct = await atInstance(`/p/${owner.workspaceSlug}/_quire/sign-in?next=%2Fguide`, await siteCookie(owner));
    expect(direct.status).toBe(302);
    expect(direct.location).toBe(`https://${DOMAIN}/_quire/sign-in?next=%2Fguide`);
  });

  test("a member's one-time token becomes the domain's own cookie (HttpOnly, SameSite=Lax, host-only) that opens the site", async () => {
    const handoff = await handOff(owner);
    expect(handoff.status).toBe(302);
    expect(handoff.headers.get("cache-control")).toBe("no-store");
    expect(handoff.headers.get("referrer-policy")).toBe("no-referrer");
    const target = new URL(handoff.location!);
    expect(target.origin).toBe(`https://${DOMAIN}`);
    expect(target.pathname).toBe("/_quire/sign-in");
    expect(target.searchParams.get("next")).toBe("/guide");

    const landed = await exchange(target, handoff.state);
    expect(landed.status).toBe(302);
    expect(landed.headers.get("location")).toBe("/guide");
    const cookie = landed.headers.getSetCookie().find((c) => c.startsWith("quire_site="))!;
    expect(cookie).toMatch(/; Path=\/;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Domain=/i);
    expect(cookie).not.toMatch(/Secure/); // BASE_URL is http here; https adds Secure
    const pair = cookie.split(";")[0]!;
    const page = await onDomain("/guide", { cookie: pair });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("how to begin");
    expect(page.headers.get("cache-control")).toContain("private");
    // The domain's cookie opens the members-only site's MCP endpoint on the domain too.
    const mcp = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { host: DOMAIN, cookie: pair, "x-forwarded-for": nextIp(), "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "site_read_page", arguments: { path: "guide.md" } } }),
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toContain("how to begin");

    // Replayed, the token opens nothing; and the domain's cookie is no key to the instance's /p/.
    const replay = await exchange(target, handoff.state);
    expect(replay.status).toBe(404);
    expect(replay.headers.getSetCookie()).toEqual([]);
    const onInstance = await atInstance(`/p/${owner.workspaceSlug}/guide`, pair);
    expect(onInstance.status).toBe(302); // to the app's sign-in: not a member's cookie there
  });

  test("a forged token, another browser's token, the instance's own cookie, an outsider and a bad `next` get nothing", async () => {
    const { state } = await begin();
    const forged = await exchange(new URL(`https://${DOMAIN}/_quire/sign-in?token=${"A".repeat(43)}&next=%2Fguide`), state);
    expect(forged.status).toBe(404);
    expect(forged.headers.getSetCookie()).toEqual([]);
    expect((await onDomain("/guide", { cookie: await siteCookie(owner) })).status).toBe(302); // signed for the instance, not the domain

    // A token made for one browser's state is refused in another (no signing a reader in to someone else's session).
    const theirs = await handOff(owner);
    const { state: mine } = await begin();
    expect((await exchange(new URL(theirs.location!), mine)).status).toBe(404);
    const again = await handOff(owner);
    expect((await exchange(new URL(again.location!), null)).status).toBe(404);

    const outsider = await registerUser(server.url);
    expect((await handOff(outsider)).status).toBe(404);

    const evil = await handOff(owner, "//evil.example/steal");
    const target = new URL(evil.location!);
    expect(target.searchParams.get("next")).toBe("/");
    target.searchParams.set("next", "https://evil.example/");
    const landed = await exchange(target, evil.state);
    expect(landed.status).toBe(302);
    expect(landed.headers.get("location")).toBe("/");
  });

  test("a token is good for one minute, for its own site, domain and browser only", async () => {
    const cookies = server.services.site.cookies;
    const session = cookies.principal(await siteCookie(owner), Date.now());
    expect(session?.kind).toBe("session");
    const sessionId = (session as { sessionId: string }).sessionId;
    const state = "s".repeat(32);
    const now = Date.now();
    const late = cookies.issueHandoff(sessionId, owner.workspaceId, DOMAIN, state, now);
    expect(cookies.redeemHandoff(late, state, owner.workspaceId, DOMAIN, now + 60_001)).toBeNull();
    const elsewhere = cookies.issueHandoff(sessionId, owner.workspaceId, DOMAIN, state, now);
    expect(cookies.redeemHandoff(elsewhere, state, owner.workspaceId, "other.example.test", now)).toBeNull();
    expect(cookies.redeemHandoff(elsewhere, state, owner.workspaceId, DOMAIN, now)).toBeNull(); // spent by the failed try
    const good = cookies.issueHandoff(sessionId, owner.workspaceId, DOMAIN, state, now);
    expect(cookies.redeemHandoff(good, state, "another-workspace", DOMAIN, now)).toBeNull();
    const fine = cookies.issueHandoff(sessionId, owner.workspaceId, DOMAIN, state, now);
    expect(cookies.redeemHandoff(fine, state, owner.workspaceId, DOMAIN, now + 59_000)).toStartWith("quire_site=");
  });

  test("signing out ends the domain's cookie too", async () => {
    const handoff = await handOff(owner);
    const landed = await exchange(new URL(handoff.location!), handoff.state);
    const pair = landed.headers.getSetCookie().find((c) => c.startsWith("quire_site="))!.split(";")[0]!;
    expect((await onDomain("/guide", { cookie: pair })).status).toBe(200);
    expect((await owner.client.post("/api/auth/logout")).status).toBeLessThan(300);
    expect((await onDomain("/guide", { cookie: pair })).status).toBe(302);
  });
});
