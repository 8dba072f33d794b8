/**
 * An MCP client that follows the specification connects to Quire with nothing but its URL: the
 * SDK's own OAuth support (`OAuthClientProvider` on StreamableHTTPClientTransport) discovers the
 * authorization server from the 401, registers (RFC 7591) or names its metadata document, and
 * sends the person to the authorization URL — here a real Chromium, where they sign in and
 * approve on the consent screen; the browser lands on the client's loopback redirect, and the
 * client finishes, lists tools and calls them.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client, StreamableHTTPClientTransport, UnauthorizedError, auth, type OAuthClientProvider } from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";
import type { TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, signInInUi, type Tab } from "./browser.ts";
import { oauthServer } from "../oauth/support.ts";
import { publish, writePage } from "../publish/site/support.ts";

setDefaultTimeout(60_000);

type Provider = OAuthClientProvider & { authorizationUrl?: URL; expectedState?: string };

/** An in-memory provider, as a desktop app keeps these in its own storage. */
function provider(redirectUrl: string, preset?: { client_id: string; issuer: string }, clientName = "SDK Test Agent"): Provider {
  let clientInfo: any = preset;
  let tokens: any;
  let verifier = "";
  let discovery: any;
  const p: Provider = {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return { client_name: clientName, redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
    },
    state() {
      p.expectedState = crypto.randomUUID();
      return p.expectedState;
    },
    clientInformation: () => clientInfo,
    saveClientInformation: (info) => void (clientInfo = info),
    tokens: () => tokens,
    saveTokens: (t) => void (tokens = t),
    redirectToAuthorization: (url) => void (p.authorizationUrl = url),
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
    saveDiscoveryState: (s) => void (discovery = s),
    discoveryState: () => discovery,
  };
  return p;
}

let server: TestServer;
let person: TestUser;
let browser: Browser;
let tab: Tab;
let callback: ReturnType<typeof Bun.serve>;
let docs: ReturnType<typeof Bun.serve>;
/** Callback URLs the browser arrived at, in order. */
const arrivals: URL[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  server = await oauthServer();
  person = await registerUser(server.url);
  callback = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      // The browser also asks for a favicon; only the redirect itself counts.
      if (url.pathname === "/callback") arrivals.push(url);
      return new Response("<!doctype html><title>Done</title><p>You can close this window.</p>", { headers: { "content-type": "text/html" } });
    },
  });
  docs = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const self = req.url;
      return Response.json({ client_id: self, client_name: "Metadata Doc Agent", redirect_uris: [`http://127.0.0.1:${callback.port}/callback`], token_endpoint_auth_method: "none" });
    },
  });
  browser = await launch();
  tab = await newTab(browser);
});
afterAll(async () => {
  if (!hasChromium) return;
  await browser.close();
  await callback.stop(true);
  await docs.stop(true);
  await server.close();
});

/** Connects; the first attempt needs the person: drive the browser, finish, connect again. */
async function connectWithBrowser(p: Provider, consent: (tab: Tab) => Promise<void>, endpoint = `${server.url}/mcp`): Promise<Client> {
  const mcpUrl = new URL(endpoint);
  const first = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
  const error = await first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: p })).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  expect(p.authorizationUrl?.origin).toBe(new URL(server.config.baseUrl).origin);
  expect(p.authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
  expect(p.authorizationUrl?.searchParams.get("resource")).toBe(`${server.config.baseUrl}${mcpUrl.pathname}`);
  const before = arrivals.length;
  await tab.page.goto(p.authorizationUrl!.href);
  await consent(tab);
  await tab.page.waitForURL(/127\.0\.0\.1:\d+\/callback\?/);
  expect(arrivals.length).toBe(before + 1);
  const back = arrivals.at(-1)!;
  expect(back.searchParams.get("state")).toBe(p.expectedState!);
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: p });
  await transport.finishAuth(back.searchParams);
  const client = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function approve(t: Tab, clientName: string) {
  await t.page.getByTestId("consent-client").waitFor();
  expect(await t.page.getByTestId("consent-client").textContent()).toBe(clientName);
  expect(await t.page.getByTestId("consent-host").textContent()).toMatch(/^127\.0\.0\.1:\d+$/);
  await t.page.getByRole("button", { name: "Allow" }).click();
}

describe.skipIf(!hasChromium)("the SDK client's OAuth flow against Quire, consent in Chromium", () => {
  test("with Dynamic Client Registration: sign in, consent (narrowed to read), tools listed and called", async () => {
    const p = provider(`http://127.0.0.1:${callback.port}/callback`);
    const client = await connectWithBrowser(p, async (t) => {
      // Signed out: the app's sign-in screen first, which returns to the consent screen.
      await t.page.getByLabel("Email").waitFor();
      await signInInUi(t.page, person);
      await t.page.getByTestId("consent-client").waitFor();
      // The client asked for every scope the resource offers; the person leaves it only read.
      for (const name of [/Create and change pages/, /Delete pages/, /Everything your role allows/]) await t.page.getByRole("checkbox", { name }).uncheck();
      await approve(t, "SDK Test Agent");
    });
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    expect(names).toContain("quire_read_page");
    expect(names).not.toContain("quire_write_page");
    expect(names).not.toContain("quire_delete_page");
    const read = await client.callTool({ name: "quire_read_page", arguments: { path: "welcome" } });
    expect(read.isError).toBeFalsy();
    expect((read.structuredContent as { path: string }).path).toBe("welcome.md");
    await client.close();
    // The profile lists it under Connected apps.
    await tab.page.goto(`${server.url}/account`);
    await tab.page.getByTestId("connected-app").first().waitFor();
    expect(await tab.page.getByTestId("connected-app").first().textContent()).toContain("SDK Test Agent");
    expectNoConsoleErrors(tab);
  });

  test("with a client metadata document served from a loopback server: already signed in, straight to consent", async () => {
    // The SDK sends a metadata-document client_id only when it is https; a loopback document is
    // http, so the client starts with that client_id as its known client information — the
    // requests Quire receives are the same as for an https document.
    const clientId = `http://127.0.0.1:${docs.port}/agent/client.json`;
    const p = provider(`http://127.0.0.1:${callback.port}/callback`, { client_id: clientId, issuer: server.config.baseUrl });
    const client = await connectWithBrowser(p, (t) => approve(t, "Metadata Doc Agent"));
    const written = await client.callTool({ name: "quire_write_page", arguments: { path: "agent-notes", body: "Written by an app that signed in with OAuth" } });
    expect(written.isError).toBeFalsy();
    const page = await person.client.get(`/api/v1/content/${person.workspaceSlug}/agent-notes`);
    expect(page.body.content).toContain("Written by an app that signed in with OAuth");
    await client.close();
    const apps = await person.client.get("/api/v1/oauth/grants");
    expect(apps.body.items.map((a: { client_id: string }) => a.client_id)).toContain(clientId);
    // The SDK's own refresh: a rotated refresh token and a new access token that works.
    const before = (await p.tokens()) as { access_token: string; refresh_token: string };
    expect(await auth(p, { serverUrl: new URL(`${server.url}/mcp`) })).toBe("AUTHORIZED");
    const after = (await p.tokens()) as { access_token: string; refresh_token: string };
    expect(after.refresh_token).not.toBe(before.refresh_token);
    const again = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
    await again.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: p }));
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
    await again.close();
    expectNoConsoleErrors(tab);
  });

  test("Revoke under Connected apps stops the app's very next call", async () => {
    const p = provider(`http://127.0.0.1:${callback.port}/callback`, undefined, "Revocable Agent");
    const client = await connectWithBrowser(p, (t) => approve(t, "Revocable Agent"));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const token = ((await p.tokens()) as { access_token: string }).access_token;
    await tab.page.goto(`${server.url}/account`);
    const row = tab.page.getByTestId("connected-app").filter({ hasText: "Revocable Agent" }).first();
    await row.waitFor();
    const before = await tab.page.getByTestId("connected-app").count();
    tab.page.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: "Revoke" }).click();
    // The row goes from both lists (the person's, and their organization's as its Super Admin).
    await tab.page.waitForFunction((n) => document.querySelectorAll('[data-testid="connected-app"]').length === n, before - 2);
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(401);
    await client.close().catch(() => undefined);
    expectNoConsoleErrors(tab);
  });

  test("a members-only site's MCP endpoint: its own resource, read only, that site's workspace; its token works nowhere else", async () => {
    const member = await registerUser(server.url);
    await writePage(member, "inside.md", { title: "Inside", body: "Members only okapi notes." });
    await publish(member, { visibility: "authenticated" });
    const endpoint = `${server.url}/p/${member.workspaceSlug}/mcp`;
    const p = provider(`http://127.0.0.1:${callback.port}/callback`, undefined, "Site Reader Agent");
    await tab.context.clearCookies();
    const client = await connectWithBrowser(
      p,
      async (t) => {
        await t.page.getByLabel("Email").waitFor();
        await signInInUi(t.page, member);
        await t.page.getByTestId("consent-site").waitFor();
        // Reading is all a site's endpoint can be given, and only this site's workspace is offered.
        expect(await t.page.getByRole("checkbox", { name: /scope|read/i }).count()).toBe(1);
        expect(await t.page.locator('input[name="workspace"]').count()).toBe(1);
        await approve(t, "Site Reader Agent");
      },
      endpoint,
    );
    const { tools } = await client.listTools();
    expect(tools.every((t) => t.name.startsWith("site_"))).toBe(true);
    const read = (await client.callTool({ name: "site_read_page", arguments: { path: "inside.md" } })) as { content: Array<{ text: string }> };
    expect(read.content.map((c) => c.text).join("")).toContain("Members only okapi notes.");
    await client.close();
    // The token is for this endpoint only: the workspace endpoint and another site refuse it.
    const token = ((await p.tokens()) as { access_token: string }).access_token;
    const ask = (url: string) =>
      fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    expect((await ask(`${server.url}/mcp`)).status).toBe(401);
    expect((await ask(`${server.url}/p/${person.workspaceSlug}/mcp`)).status).not.toBe(200);
    expect((await ask(endpoint)).status).toBe(200);
    // Signed out by clearing the cookies, the app's first refresh is refused (401) before the sign-in.
    expectNoConsoleErrors(tab, [401]);
  });
});
