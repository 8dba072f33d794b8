import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { join } from "node:path";
import { nextIp } from "../../helpers/client.ts";
import { get, publish, writePage } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let closed: TestUser;
let versioned: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  closed = await registerUser(server.url);
  versioned = await registerUser(server.url);
  await writePage(owner, "guides/intro.md", { title: "Intro", body: "The zebrafish guide explains everything." });
  await writePage(owner, "drafts/secret.md", { title: "Secret", body: "The zebrafish plan nobody may read.", publish: false });
  await publish(owner);
  await writePage(closed, "inside.md", { title: "Inside", body: "Members only zebrafish." });
  await publish(closed, { visibility: "authenticated" });
  await writePage(versioned, "guide.md", { title: "Guide", body: "The okapi text of version one." });
  await publish(versioned);
}, 30_000);
afterAll(() => server.close());

/** The SDK's client on a site's endpoint; `headers` go on every request it makes (a cookie, a client address). */
async function siteClient(slug: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "site-reader", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/p/${slug}/mcp`), { requestInit: { headers } }));
  return client;
}

/** A raw MCP request (no session: the endpoint is stateless), from its own client address unless told. */
function rawMcp(slug: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/p/${slug}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-forwarded-for": nextIp(), ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

/** The members' site cookie of a signed-in member's browser (`name=value`). */
async function siteCookie(user: TestUser): Promise<string> {
  const r = await user.client.post("/api/v1/site-session");
  expect(r.status).toBe(204);
  return r.headers.getSetCookie().find((c) => c.startsWith("quire_site="))!.split(";")[0]!;
}
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => {
  const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
  return { isError: r.isError === true, text: r.content.map((x) => x.text).join("\n") };
};

describe("POST /p/{slug}/mcp, with the SDK's client and no sign-in", () => {
  test("tools/list holds only the read-only site_ tools", async () => {
    const c = await siteClient(owner.workspaceSlug);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["site_get_llms_txt", "site_get_tree", "site_list_pages", "site_read_page", "site_search"]);
    for (const t of tools) expect(t.annotations?.readOnlyHint).toBe(true);
    await c.close();
  });

  test("each tool answers published pages only: the unpublished page is never revealed", async () => {
    const c = await siteClient(owner.workspaceSlug);
    const list = await call(c, "site_list_pages");
    expect(list.text).toContain("guides/intro.md");
    expect(list.text).not.toContain("secret");
    const search = await call(c, "site_search", { query: "zebrafish" });
    expect(search.text).toContain("Intro");
    expect(search.text).not.toContain("Secret");
    const read = await call(c, "site_read_page", { path: "guides/intro.md" });
    expect(read.text).toContain("zebrafish guide");
    const hidden = await call(c, "site_read_page", { path: "drafts/secret.md" });
    expect(hidden.isError).toBe(true);
    expect(hidden.text).not.toContain("nobody may read");
    expect(hidden.text).toContain("NOT_FOUND");
    const tree = await call(c, "site_get_tree");
    expect(tree.text).toContain("Intro");
    expect(tree.text).not.toContain("Secret");
    const llms = await call(c, "site_get_llms_txt");
    expect(llms.text).toContain("guides/intro.md");
    expect(llms.text).not.toContain("secret");
    await c.close();
  });

  test("bad input is refused: traversal, unknown arguments, an over-long query", async () => {
    const c = await siteClient(owner.workspaceSlug);
    const traversal = await call(c, "site_read_page", { path: "../drafts/secret.md" });
    expect(traversal.isError).toBe(true);
    expect(traversal.text).not.toContain("nobody may read");
    expect((await call(c, "site_read_page", { path: "guides/intro.md", extra: 1 })).isError).toBe(true);
    expect((await call(c, "site_search", { query: "x".repeat(201) })).isError).toBe(true);
    expect((await call(c, "site_read_page", {})).isError).toBe(true);
    await c.close();
  });

  test("an unknown site is 404; a members-only site asked anonymously is 401 naming its resource metadata, and nothing of its pages", async () => {
    const post = (slug: string) =>
      fetch(`${server.url}/p/${slug}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    for (const slug of ["no-such-site", "..%2f"]) {
      const r = await post(slug);
      expect(r.status).toBe(404);
      expect(r.headers.get("www-authenticate")).toBeNull();
    }
    // Its HTML pages send an anonymous reader to the sign-in already; the MCP endpoint says how an
    // assistant signs in instead: the members' OAuth protected resource of this one site.
    const closedSite = await post(closed.workspaceSlug);
    expect(closedSite.status).toBe(401);
    const base = server.services.config.baseUrl;
    expect(closedSite.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/p/${closed.workspaceSlug}/mcp", scope="read"`);
    expect(await closedSite.text()).not.toContain("zebrafish");
  });
});

describe("who reads what", () => {
  test("a member with the members' site cookie reads a members-only site's pages; an anonymous client does not", async () => {
    const member = await siteClient(closed.workspaceSlug, { cookie: await siteCookie(closed) });
    expect((await call(member, "site_list_pages")).text).toContain("inside.md");
    const read = await call(member, "site_read_page", { path: "inside.md" });
    expect(read.isError).toBe(false);
    expect(read.text).toContain("Members only zebrafish.");
    expect((await call(member, "site_search", { query: "zebrafish" })).text).toContain("Inside");
    await member.close();

    // The SDK's client, anonymously: refused before any exchange (401: sign in first), the page's text never sent.
    const anonymous = new Client({ name: "site-reader", version: "1.0.0" });
    let refused: unknown = null;
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/p/${closed.workspaceSlug}/mcp`))).catch((error: unknown) => (refused = error));
    expect(String(refused)).toContain("UNAUTHORIZED");
    expect(String(refused)).not.toContain("zebrafish");
    // Someone else's cookie (a signed-in person who is not a member) is refused the same way.
    const stranger = await rawMcp(closed.workspaceSlug, { cookie: await siteCookie(owner) });
    expect(stranger.status).toBe(404);
    expect(await stranger.text()).not.toContain("zebrafish");
  });

  test("another site's page is never answered, even to that site's member", async () => {
    // The members-only site's member asks the public site's endpoint for the other site's page.
    const c = await siteClient(owner.workspaceSlug, { cookie: await siteCookie(closed) });
    const other = await call(c, "site_read_page", { path: "inside.md" });
    expect(other.isError).toBe(true);
    expect(other.text).toContain("NOT_FOUND");
    expect(other.text).not.toContain("Members only");
    const search = await call(c, "site_search", { query: "zebrafish" });
    expect(search.text).not.toContain("Inside");
    expect(search.text).not.toContain("Members only");
    for (const path of [`../${closed.workspaceSlug}/inside.md`, `/p/${closed.workspaceSlug}/inside.md`, `${server.url}/p/${closed.workspaceSlug}/inside`]) {
      const r = await call(c, "site_read_page", { path });
      expect(r.isError).toBe(true);
      expect(r.text).not.toContain("Members only");
    }
    await c.close();
  });
});

describe("versions", () => {
  test("a non-default version's pages are read with its slug; the main version without one", async () => {
    const created = await versioned.client.post(`/api/v1/workspaces/${versioned.workspaceId}/versions`, { slug: "v1", name: "Version 1", snapshot: true });
    expect(created.status).toBe(201);
    const current = await versioned.client.get(`/api/v1/content/${versioned.workspaceSlug}/guide.md`);
    await versioned.client.put(`/api/v1/content/${versioned.workspaceSlug}/guide.md`, { body: "The okapi text of version two.", lastKnownHash: current.body.content_hash });

    const c = await siteClient(versioned.workspaceSlug);
    const main = await call(c, "site_read_page", { path: "guide.md" });
    expect(main.text).toContain("version two");
    const old = await call(c, "site_read_page", { path: "guide.md", version: "v1" });
    expect(old.isError).toBe(false);
    expect(old.text).toContain("version one");
    expect(old.text).toContain(`/p/${versioned.workspaceSlug}/v1/guide`);
    expect((await call(c, "site_search", { query: "okapi", version: "v1" })).text).toContain(`/v1/guide`);
    expect((await call(c, "site_list_pages", { version: "v1" })).text).toContain("guide.md");
    const unknown = await call(c, "site_read_page", { path: "guide.md", version: "v9" });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain("NOT_FOUND");
    await c.close();

    // The version's own llms.txt names the one endpoint and how to ask for this version.
    const llms = await get(server, `/p/${versioned.workspaceSlug}/v1/llms.txt`);
    expect(llms.text).toContain(`${server.config.baseUrl}/p/${versioned.workspaceSlug}/mcp`);
    expect(llms.text).toContain('version: "v1"');
    const page = await get(server, `/p/${versioned.workspaceSlug}/v1/guide`);
    expect(page.text).toContain(`<link rel="mcp" href="${server.config.baseUrl}/p/${versioned.workspaceSlug}/mcp"`);
    expect(page.text).toContain("<code>v1</code>");
  });
});

describe("discovery", () => {
  const endpoint = () => `${server.config.baseUrl}/p/${owner.workspaceSlug}/mcp`;

  test("llms.txt names the endpoint and the tools it lists are the endpoint's own", async () => {
    const llms = await get(server, `/p/${owner.workspaceSlug}/llms.txt`);
    expect(llms.status).toBe(200);
    expect(llms.text).toContain(`MCP server: [${endpoint()}](${endpoint()})`);
    expect(llms.text).not.toContain("version:");
    const named = [...llms.text.matchAll(/`(site_[a-z_]+)`/g)].map((m) => m[1]).sort();
    const c = await siteClient(owner.workspaceSlug);
    expect(named).toEqual((await c.listTools()).tools.map((t) => t.name).sort());
    // The tool's copy of llms.txt is the file's.
    expect((await call(c, "site_get_llms_txt")).text).toBe(llms.text);
    await c.close();
  });

  test("the page's head names the endpoint (rel=mcp) and a public site offers the copy-the-address snippet", async () => {
    const a = await get(server, `/p/${owner.workspaceSlug}/guides/intro`);
    expect(a.status).toBe(200);
    const head = a.text.slice(0, a.text.indexOf("</head>"));
    expect(head).toContain(`<link rel="mcp" href="${endpoint()}" title="MCP server (read-only)">`);
    expect(a.text).toContain("Use with your AI assistant");
    expect(a.text).toMatch(new RegExp(`<code class="assistant-snippet-url">${endpoint().replace(/[.]/g, "\\.")}</code><button type="button" class="copy-mcp-url" data-copy="${endpoint().replace(/[.]/g, "\\.")}" hidden>Copy URL</button>`));
    // No inline script was added: the policy's one hash is the light/dark script's.
    expect([...a.headers.get("content-security-policy")!.matchAll(/'sha256-/g)].length).toBe(1);
    expect(a.text.match(/<script(?![^>]*(\bsrc=|application\/json))[^>]*>/g)!.length).toBe(1);
    // The same bytes for every reader of the version (a reader with a cookie included).
    const b = await get(server, `/p/${owner.workspaceSlug}/guides/intro`, { cookie: await siteCookie(closed) });
    expect(b.text).toBe(a.text);
  });

  test("a members-only site names its endpoint in the head but offers no snippet (no app outside the browser can sign in yet)", async () => {
    const page = await get(server, `/p/${closed.workspaceSlug}/inside`, { cookie: await siteCookie(closed) });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<link rel="mcp" href="${server.config.baseUrl}/p/${closed.workspaceSlug}/mcp"`);
    expect(page.text).not.toContain("Use with your AI assistant");
  });
});

describe("the event stream", () => {
  test("GET asking for the event stream is 405 (POST only), as Streamable HTTP has it; a browser's GET is the site's", async () => {
    // Answered with the site's 404 page instead, the Inspector's client sometimes listed no tools.
    const stream = await get(server, `/p/${owner.workspaceSlug}/mcp`, { accept: "text/event-stream" });
    expect(stream.status).toBe(405);
    expect(stream.headers.get("allow")).toBe("POST");
    expect((await get(server, `/p/no-such-site/mcp`, { accept: "text/event-stream" })).status).toBe(405);
    const browser = await get(server, `/p/${owner.workspaceSlug}/mcp`, { accept: "text/html,application/xhtml+xml,*/*;q=0.8" });
    expect(browser.status).toBe(404);
    expect(browser.headers.get("content-type")).toContain("text/html");
  });
});

describe("rate limit", () => {
  test("the endpoint is counted under the site's per-IP limit: a 429 in the error shape after 600 a minute", async () => {
    const ip = "10.251.7.7";
    // The site's pages and the endpoint share one allowance: 599 reads, then the endpoint's 600th.
    for (let i = 0; i < 599; i++) expect((await get(server, `/p/${owner.workspaceSlug}/robots.txt`, { "x-forwarded-for": ip })).status).toBe(200);
    const last = await rawMcp(owner.workspaceSlug, { "x-forwarded-for": ip });
    expect(last.status).toBe(200);
    expect(last.headers.get("x-ratelimit-limit")).toBe("600");
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
    await last.text();
    const refused = await rawMcp(owner.workspaceSlug, { "x-forwarded-for": ip });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    const body = (await refused.json()) as { error: string; message: string; request_id: string };
    expect(body.error).toBe("RATE_LIMITED");
    expect(body.request_id).toBe(refused.headers.get("x-request-id")!);
    // Another address is not held back.
    expect((await rawMcp(owner.workspaceSlug)).status).toBe(200);
  }, 30_000);
});

describe("the MCP Inspector CLI as an outside client", () => {
  const REPO = join(import.meta.dir, "../../..");
  async function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const home = join(server.dataDir, "inspector-home");
    const p = Bun.spawn([join(REPO, "node_modules/.bin/mcp-inspector"), "--cli", ...args], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home }, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, stdout, stderr };
  }
  const http = () => ["--server-url", `${server.url}/p/${owner.workspaceSlug}/mcp`, "--transport", "http", "--stored-auth-only", "-q"];

  test("tools/list --strict, a search and a read against /p/{slug}/mcp", async () => {
    const list = await inspector([...http(), "--method", "tools/list", "--strict", "--format", "json"]);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout).result.tools as Array<{ name: string }>).map((t) => t.name)).toContain("site_read_page");
    const search = await inspector([...http(), "--method", "tools/call", "--tool-name", "site_search", "--tool-args-json", JSON.stringify({ query: "zebrafish" })]);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toContain("guides/intro.md");
    expect(search.stdout).not.toContain("Secret");
    const read = await inspector([...http(), "--method", "tools/call", "--tool-name", "site_read_page", "--tool-args-json", JSON.stringify({ path: "guides/intro.md" })]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain("zebrafish guide");
  }, 60_000);
});
