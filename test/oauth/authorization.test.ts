/**
 * The MCP endpoint as an OAuth 2.1 protected resource with Quire as its authorization server:
 * discovery, an authorization from registration to a tool call, refresh, revocation, connected
 * apps, and the limits a token lives within (consented scopes and workspaces, the person's roles).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, setSystemTime, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { memberWithRole } from "../access/support.ts";
import { authorize, consentedCode, exchange, mcp, oauthServer, pkce, postForm, registerClient } from "./support.ts";

setDefaultTimeout(30_000);

let server: TestServer;
let owner: TestUser;
let base: string;
const REDIRECT = "http://127.0.0.1:4567/callback";

beforeAll(async () => {
  server = await oauthServer();
  base = server.config.baseUrl;
  owner = await registerUser(server.url);
});
afterAll(() => server.close());

/** A fresh client and a completed authorization: the token answer. */
async function authorized(user: TestUser, choose: { scopes?: string[]; workspace_ids?: string[] } = {}, scope = "read write") {
  const clientId = await registerClient(server, [REDIRECT]);
  const { verifier, challenge } = pkce();
  const { code } = await consentedCode(server, user, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, scope }, choose);
  const tokens = await exchange(server, clientId, REDIRECT, code, verifier);
  expect(tokens.status).toBe(200);
  return { clientId, ...tokens.body } as { clientId: string; access_token: string; refresh_token: string; scope: string; expires_in: number; token_type: string };
}

describe("discovery", () => {
  test("POST /mcp without a credential: 401 naming the resource metadata and the scopes", async () => {
    const res = await fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="read write delete admin"`);
  });

  test("the protected resource metadata (both paths) names Quire as the authorization server", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: `${base}/mcp`,
        authorization_servers: [base],
        scopes_supported: ["read", "write", "delete", "admin"],
        bearer_methods_supported: ["header"],
        resource_name: "Quire",
      });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  test("the authorization server metadata: S256 only, public clients, registration and metadata documents", async () => {
    const res = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(base);
    expect(meta.authorization_endpoint).toBe(`${base}/oauth/authorize`);
    expect(meta.token_endpoint).toBe(`${base}/oauth/token`);
    expect(meta.registration_endpoint).toBe(`${base}/oauth/register`);
    expect(meta.revocation_endpoint).toBe(`${base}/oauth/revoke`);
    expect(meta.code_challenge_methods_supported).toEqual(["S256"]);
    expect(meta.token_endpoint_auth_methods_supported).toEqual(["none"]);
    expect(meta.client_id_metadata_document_supported).toBe(true);
  });

  test("the token and registration endpoints answer CORS preflights from any origin", async () => {
    for (const path of ["/oauth/token", "/oauth/register", "/oauth/revoke"]) {
      const res = await fetch(`${server.url}${path}`, { method: "OPTIONS", headers: { origin: "https://claude.ai", "access-control-request-method": "POST", "access-control-request-headers": "content-type" } });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
  });
});

describe("an authorization, start to finish", () => {
  test("register, consent, exchange: the token lists and calls tools as the person", async () => {
    const t = await authorized(owner);
    expect(t.token_type).toBe("Bearer");
    expect(t.scope).toBe("read write");
    expect(t.expires_in).toBe(600);
    const list = await mcp(server, t.access_token, "tools/list");
    expect(list.status).toBe(200);
    const names = list.body.result.tools.map((x: { name: string }) => x.name);
    expect(names).toContain("quire_write_page");
    expect(names).not.toContain("quire_delete_page"); // delete was not asked for
    const read = await mcp(server, t.access_token, "tools/call", { name: "quire_read_page", arguments: { path: "welcome" } }, "quire_read_page");
    expect(read.body.result.structuredContent.path).toBe("welcome.md");
    const write = await mcp(server, t.access_token, "tools/call", { name: "quire_write_page", arguments: { path: "from-agent", body: "Hello from an app" } }, "quire_write_page");
    expect(write.body.result.isError).toBeFalsy();
    const page = await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/from-agent`);
    expect(page.status).toBe(200);
    expect(page.body.content).toContain("Hello from an app");
  });

  test("a tool the scopes do not allow: 403 insufficient_scope naming the scope", async () => {
    const t = await authorized(owner, { scopes: ["read"] });
    expect(t.scope).toBe("read");
    const res = await mcp(server, t.access_token, "tools/call", { name: "quire_write_page", arguments: { path: "x", body: "y" } }, "quire_write_page");
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer error="insufficient_scope", scope="write", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    expect(res.body.error).toBe("FORBIDDEN");
    expect(await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/x`).then((r) => r.status)).toBe(404);
  });

  test("the 2025 era's stateless requests take the same token, and meet the same insufficient_scope", async () => {
    const t = await authorized(owner, { scopes: ["read"] });
    const post = (body: unknown) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify(body),
      });
    const list = await post({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    expect(list.status).toBe(200);
    const text = await list.text();
    expect(text).toContain("quire_read_page");
    expect(text).not.toContain("quire_write_page");
    const write = await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "quire_write_page", arguments: { path: "y", body: "z" } } });
    expect(write.status).toBe(403);
    expect(write.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="write"');
  });

  test("the person may narrow the scopes but never widen them", async () => {
    const clientId = await registerClient(server, [REDIRECT]);
    const { challenge } = pkce();
    await expect(consentedCode(server, owner, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, scope: "read" }, { scopes: ["read", "admin"] })).rejects.toThrow(/403/);
  });

  test("refresh rotates the refresh token; the same one again within the grace window gets the same successor", async () => {
    const t = await authorized(owner);
    const first = await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: t.clientId });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(t.refresh_token);
    const again = await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: t.clientId });
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(first.body.refresh_token);
    expect((await mcp(server, first.body.access_token, "tools/list")).status).toBe(200);
    // A refresh may narrow the scopes of the new access token, never widen them.
    const narrowed = await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: first.body.refresh_token, client_id: t.clientId, scope: "read" });
    expect(narrowed.body.scope).toBe("read");
    const wider = await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: narrowed.body.refresh_token, client_id: t.clientId, scope: "read admin" });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe("invalid_scope");
  });

  test("revocation (RFC 7009): the refresh token ends the authorization, and its access token stops at once", async () => {
    const t = await authorized(owner);
    expect((await mcp(server, t.access_token, "tools/list")).status).toBe(200);
    const revoked = await postForm(server, "/oauth/revoke", { token: t.refresh_token, client_id: t.clientId });
    expect(revoked.status).toBe(200);
    expect((await mcp(server, t.access_token, "tools/list")).status).toBe(401);
    const refresh = await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: t.clientId });
    expect(refresh.body.error).toBe("invalid_grant");
    // An unknown token is answered the same (nothing is learnt about tokens).
    expect((await postForm(server, "/oauth/revoke", { token: "nonsense" })).status).toBe(200);
  });

  test("an access token revoked by itself ends its authorization too", async () => {
    const t = await authorized(owner);
    expect((await postForm(server, "/oauth/revoke", { token: t.access_token, token_type_hint: "access_token" })).status).toBe(200);
    expect((await mcp(server, t.access_token, "tools/list")).status).toBe(401);
  });
});

describe("connected apps", () => {
  test("the person lists their apps with last use, scopes and workspaces, and revokes one: its tokens stop at once", async () => {
    const person = await registerUser(server.url);
    const t = await authorized(person, { scopes: ["read"] });
    const list = await person.client.get("/api/v1/oauth/grants");
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    const app = list.body.items[0];
    expect(app).toMatchObject({ client_id: t.clientId, client_name: "Test Agent", redirect_host: "127.0.0.1:4567", scopes: ["read"], user: { id: person.id } });
    expect(app.workspaces).toEqual([{ id: person.workspaceId, slug: person.workspaceSlug, name: expect.any(String) }]);
    expect(app.last_used_at).toBeString();
    // Nobody else can see or revoke it.
    const stranger = await registerUser(server.url);
    expect((await stranger.client.delete(`/api/v1/oauth/grants/${app.id}`)).status).toBe(404);
    expect((await stranger.client.get("/api/v1/oauth/grants")).body.items).toEqual([]);
    expect((await person.client.delete(`/api/v1/oauth/grants/${app.id}`)).status).toBe(204);
    expect((await mcp(server, t.access_token, "tools/list")).status).toBe(401);
    expect((await person.client.get("/api/v1/oauth/grants")).body.items).toEqual([]);
  });

  test("the organization's Super Admin sees the apps connected to its workspaces; another organization's does not", async () => {
    const ws = (await owner.client.post("/api/v1/workspaces", { name: "Apps", slug: "apps-org" })).body.id as string;
    const editor = await memberWithRole(server, owner, ws, "editor");
    const t = await authorized(editor, { workspace_ids: [ws] });
    const org = await owner.client.get("/api/v1/oauth/grants/organization");
    expect(org.status).toBe(200);
    const seen = org.body.items.find((g: { client_id: string }) => g.client_id === t.clientId);
    expect(seen).toMatchObject({ user: { id: editor.id, email: editor.email }, workspaces: [{ id: ws, slug: "apps-org", name: "Apps" }] });
    // The editor is Super Admin of their own organization only: the app is not listed there.
    const theirs = await editor.client.get("/api/v1/oauth/grants/organization");
    expect(theirs.body.items.map((g: { client_id: string }) => g.client_id)).not.toContain(t.clientId);
    // The owner may revoke it for the organization.
    expect((await owner.client.delete(`/api/v1/oauth/grants/${seen.id}`)).status).toBe(204);
    expect((await mcp(server, t.access_token, "tools/list")).status).toBe(401);
  });

  test("an app unused for 30 days is forgotten: its refresh token is refused and it is no longer listed", async () => {
    const person = await registerUser(server.url);
    const t = await authorized(person);
    expect((await person.client.get("/api/v1/oauth/grants")).body.items).toHaveLength(1);
    try {
      setSystemTime(new Date(Date.now() + 31 * 24 * 3600 * 1000));
      // The next authorization request, anyone's, sweeps what expired.
      const clientId = await registerClient(server, [REDIRECT]);
      const started = await authorize(server, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: "S256", resource: `${base}/mcp` });
      expect(started.status).toBe(302);
    } finally {
      setSystemTime();
    }
    expect((await person.client.get("/api/v1/oauth/grants")).body.items).toEqual([]);
    expect((await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: t.clientId })).body.error).toBe("invalid_grant");
  });

  test("an app's token cannot manage connected apps or reach the REST API", async () => {
    const t = await authorized(owner);
    const res = await fetch(`${server.url}/api/v1/oauth/grants`, { headers: { authorization: `Bearer ${t.access_token}` } });
    expect(res.status).toBe(401);
    const rest = await fetch(`${server.url}/api/v1/workspaces`, { headers: { authorization: `Bearer ${t.access_token}` } });
    expect(rest.status).toBe(401);
  });
});

describe("what a token reaches", () => {
  test("only the consented workspaces, and only while the person keeps a role there", async () => {
    const ws = (await owner.client.post("/api/v1/workspaces", { name: "Shared", slug: "shared-oauth" })).body.id as string;
    const other = (await owner.client.post("/api/v1/workspaces", { name: "Other", slug: "other-oauth" })).body.id as string;
    const editor = await memberWithRole(server, owner, ws, "editor");
    await memberWithRole(server, owner, other, "editor").catch(() => undefined);
    const t = await authorized(editor, { workspace_ids: [ws] });
    const listed = await mcp(server, t.access_token, "tools/call", { name: "quire_list_workspaces", arguments: {} }, "quire_list_workspaces");
    expect(listed.body.result.structuredContent.items.map((w: { slug: string }) => w.slug)).toEqual(["shared-oauth"]);
    // The person's own starter workspace was not consented to.
    const own = await mcp(server, t.access_token, "tools/call", { name: "quire_read_page", arguments: { workspace: editor.workspaceSlug, path: "welcome" } }, "quire_read_page");
    expect(own.body.result.isError).toBe(true);
    const read = await mcp(server, t.access_token, "tools/call", { name: "quire_list_pages", arguments: { workspace: "shared-oauth" } }, "quire_list_pages");
    expect(read.body.result.isError).toBeFalsy();
    // Removed from the workspace: the very next call is refused, with the same token.
    expect((await owner.client.delete(`/api/v1/workspaces/${ws}/admin/members/${editor.id}`)).status).toBe(204);
    const after = await mcp(server, t.access_token, "tools/call", { name: "quire_list_pages", arguments: { workspace: "shared-oauth" } }, "quire_list_pages");
    expect(after.body.result.isError).toBe(true);
    expect(after.body.result.content[0].text).toMatch(/not found/i);
  });

  test("a role lowered to viewer caps the token's writes though write was consented", async () => {
    const ws = (await owner.client.post("/api/v1/workspaces", { name: "Capped", slug: "capped-oauth" })).body.id as string;
    const editor = await memberWithRole(server, owner, ws, "editor");
    const t = await authorized(editor, { workspace_ids: [ws] });
    const ok = await mcp(server, t.access_token, "tools/call", { name: "quire_write_page", arguments: { workspace: "capped-oauth", path: "a", body: "one" } }, "quire_write_page");
    expect(ok.body.result.isError).toBeFalsy();
    expect((await owner.client.put(`/api/v1/workspaces/${ws}/admin/members/${editor.id}/role`, { role: "viewer" })).status).toBe(200);
    const refused = await mcp(server, t.access_token, "tools/call", { name: "quire_write_page", arguments: { workspace: "capped-oauth", path: "a", body: "two" } }, "quire_write_page");
    expect(refused.body.result.isError).toBe(true);
  });

  test("API keys keep working as bearer tokens at /mcp", async () => {
    const key = await owner.client.post("/api/v1/api-keys", { name: "k", scopes: ["read"] });
    const res = await mcp(server, key.body.key, "tools/list");
    expect(res.status).toBe(200);
    expect(res.body.result.tools.length).toBeGreaterThan(5);
  });
});
