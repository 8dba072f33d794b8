/**
 * A members-only site's MCP endpoint as a protected resource of its own: its metadata, tokens
 * issued for it (read only, that site's workspace only) that no other endpoint accepts, and
 * refusals for resources that are not members-only sites.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { publish, writePage } from "../publish/site/support.ts";
import { authorize, consentedCode, oauthServer, pkce, postForm, registerClient, requestIdOf } from "./support.ts";

const LOOPBACK = "http://127.0.0.1:8765/callback";
let server: TestServer;
let member: TestUser;
let outsider: TestUser;
let publicSite: TestUser;
let base: string;
let resource: string;

beforeAll(async () => {
  server = await oauthServer();
  base = server.config.baseUrl;
  member = await registerUser(server.url);
  outsider = await registerUser(server.url);
  publicSite = await registerUser(server.url);
  await writePage(member, "inside.md", { title: "Inside", body: "The members' okapi." });
  await publish(member, { visibility: "authenticated" });
  await writePage(publicSite, "open.md", { title: "Open", body: "Anyone reads this." });
  await publish(publicSite);
  resource = `${base}/p/${member.workspaceSlug}/mcp`;
}, 30_000);
afterAll(() => server?.close());

const ask = (url: string, token: string) =>
  fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });

describe("a members-only site's endpoint", () => {
  test("has its own resource metadata (read only); a public or unknown site has none", async () => {
    const meta = await fetch(`${server.url}/.well-known/oauth-protected-resource/p/${member.workspaceSlug}/mcp`);
    expect(meta.status).toBe(200);
    expect(await meta.json()).toMatchObject({ resource, authorization_servers: [base], scopes_supported: ["read"] });
    for (const slug of [publicSite.workspaceSlug, "no-such-site"]) expect((await fetch(`${server.url}/.well-known/oauth-protected-resource/p/${slug}/mcp`)).status).toBe(404);
  });

  test("a token for it reads the site, and only there; every scope asked becomes read; only the site's workspace is offered", async () => {
    const clientId = await registerClient(server, [LOOPBACK]);
    const { verifier, challenge } = pkce();
    const view = await member.client.get(`/api/v1/oauth/consent/${requestIdOf(await authorize(server, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge, code_challenge_method: "S256", resource, scope: "read write admin" }))}`);
    expect(view.body).toMatchObject({ scopes: ["read"], site: expect.any(String) });
    expect(view.body.workspaces.map((w: { id: string }) => w.id)).toEqual([member.workspaceId]);

    const { code } = await consentedCode(server, member, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge, resource, scope: "read" });
    const tokens = await postForm(server, "/oauth/token", { grant_type: "authorization_code", code, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: verifier, resource });
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe("read");
    const token = tokens.body.access_token as string;
    expect((await ask(resource, token)).status).toBe(200);
    expect((await ask(`${server.url}/mcp`, token)).status).toBe(401);
    // A refresh keeps the resource: asking for another one is invalid_target.
    const wrong = await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: tokens.body.refresh_token, client_id: clientId, resource: `${base}/mcp` });
    expect(wrong.body.error).toBe("invalid_target");
    const refreshed = await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: tokens.body.refresh_token, client_id: clientId, resource });
    expect(refreshed.status).toBe(200);
    expect((await ask(resource, refreshed.body.access_token)).status).toBe(200);
    // A token for the workspace endpoint is not one for the site.
    const { verifier: v2, challenge: c2 } = pkce();
    const ws = await consentedCode(server, member, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: c2 }, { scopes: ["read"] });
    const wsTokens = await postForm(server, "/oauth/token", { grant_type: "authorization_code", code: ws.code, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: v2, resource: `${base}/mcp` });
    expect((await ask(resource, wsTokens.body.access_token)).status).toBe(401);
  });

  test("someone who is not a member is offered no workspace and cannot approve", async () => {
    const clientId = await registerClient(server, [LOOPBACK]);
    const { challenge } = pkce();
    const id = requestIdOf(await authorize(server, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge, code_challenge_method: "S256", resource }));
    const view = await outsider.client.get(`/api/v1/oauth/consent/${id}`);
    expect(view.body.workspaces).toEqual([]);
    const approve = await outsider.client.post(`/api/v1/oauth/consent/${id}`, { consent_token: view.body.consent_token, approve: true, scopes: ["read"], workspace_ids: [member.workspaceId] });
    expect(approve.status).toBe(404);
  });

  test("a public site, an unknown site and crafted paths are not resources (invalid_target)", async () => {
    const clientId = await registerClient(server, [LOOPBACK]);
    const { challenge } = pkce();
    for (const r of [`${base}/p/${publicSite.workspaceSlug}/mcp`, `${base}/p/no-such-site/mcp`, `${base}/p/${member.workspaceSlug}/../mcp`, `${base}/p/${member.workspaceSlug}/mcp/`, `${base}/p//mcp`]) {
      const res = await authorize(server, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge, code_challenge_method: "S256", resource: r });
      expect(new URL(res.headers.get("location")!).searchParams.get("error"), r).toBe("invalid_target");
    }
  });
});
