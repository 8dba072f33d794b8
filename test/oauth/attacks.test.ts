/**
 * Attacks on the authorization server, each on its own: replayed and unbound codes, PKCE left out
 * or weakened, redirect URIs that almost match, open redirects, registrations of dangerous
 * redirect URIs, tokens for another audience, refresh replay, revoked authorizations, consent
 * forgery and framing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, setSystemTime, test } from "bun:test";
import { SignJWT } from "jose";
import type { TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { createKey } from "../mcp/fixture.ts";
import { authorize, consentedCode, exchange, mcp, oauthServer, pkce, postForm, registerClient, requestIdOf } from "./support.ts";

setDefaultTimeout(30_000);

let server: TestServer;
let owner: TestUser;
let base: string;
const LOOPBACK = "http://127.0.0.1:4567/callback";
const WEB = "https://agent.example/oauth/callback";

beforeAll(async () => {
  server = await oauthServer();
  base = server.config.baseUrl;
  owner = await registerUser(server.url);
});
afterAll(() => server.close());
afterEach(() => setSystemTime());

async function codeFor(redirect = LOOPBACK) {
  const clientId = await registerClient(server, [redirect]);
  const { verifier, challenge } = pkce();
  const { code } = await consentedCode(server, owner, { client_id: clientId, redirect_uri: redirect, code_challenge: challenge, state: "s1" });
  return { clientId, verifier, code, redirect };
}

describe("authorization codes", () => {
  test("a code used twice: the second use is refused and the tokens of the first stop", async () => {
    const c = await codeFor();
    const first = await exchange(server, c.clientId, c.redirect, c.code, c.verifier);
    expect(first.status).toBe(200);
    expect((await mcp(server, first.body.access_token, "tools/list")).status).toBe(200);
    const second = await exchange(server, c.clientId, c.redirect, c.code, c.verifier);
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ error: "invalid_grant", error_description: expect.stringContaining("already used") });
    expect((await mcp(server, first.body.access_token, "tools/list")).status).toBe(401);
    const refresh = await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: first.body.refresh_token, client_id: c.clientId });
    expect(refresh.body.error).toBe("invalid_grant");
  });

  test("a wrong verifier is refused and spends the code (the right one afterwards fails too)", async () => {
    const c = await codeFor();
    const wrong = await exchange(server, c.clientId, c.redirect, c.code, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
    expect((await exchange(server, c.clientId, c.redirect, c.code, c.verifier)).body.error).toBe("invalid_grant");
  });

  test("no verifier at all is refused", async () => {
    const c = await codeFor();
    const res = await postForm(server, "/oauth/token", { grant_type: "authorization_code", code: c.code, redirect_uri: c.redirect, client_id: c.clientId });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_request");
  });

  test("a code is bound to its client and its redirect URI", async () => {
    const c = await codeFor();
    const other = await registerClient(server, [LOOPBACK]);
    expect((await exchange(server, other, c.redirect, c.code, c.verifier)).body.error).toBe("invalid_grant");
    const d = await codeFor();
    expect((await exchange(server, d.clientId, "http://127.0.0.1:4567/other", d.code, d.verifier)).body.error).toBe("invalid_grant");
  });

  test("a code older than a minute is refused", async () => {
    const c = await codeFor();
    setSystemTime(new Date(Date.now() + 61_000));
    expect((await exchange(server, c.clientId, c.redirect, c.code, c.verifier)).body).toEqual({ error: "invalid_grant", error_description: "the authorization code has expired" });
  });

  test("a parameter sent twice is refused", async () => {
    const res = await fetch(`${server.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=authorization_code&code=a&code=b" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_request");
  });
});

describe("PKCE at the authorization endpoint", () => {
  const back = (res: Response) => new URL(res.headers.get("location")!);

  test("no code_challenge: the client is told invalid_request, no consent is asked", async () => {
    const clientId = await registerClient(server, [LOOPBACK]);
    const res = await authorize(server, { client_id: clientId, redirect_uri: LOOPBACK, resource: `${base}/mcp`, state: "x" });
    expect(res.status).toBe(302);
    const to = back(res);
    expect(`${to.origin}${to.pathname}`).toBe(LOOPBACK);
    expect(to.searchParams.get("error")).toBe("invalid_request");
    expect(to.searchParams.get("state")).toBe("x");
    expect(to.searchParams.get("code")).toBeNull();
  });

  test("the plain method is refused", async () => {
    const clientId = await registerClient(server, [LOOPBACK]);
    const { verifier } = pkce();
    const res = await authorize(server, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: verifier, code_challenge_method: "plain", resource: `${base}/mcp` });
    expect(back(res).searchParams.get("error")).toBe("invalid_request");
    expect(back(res).searchParams.get("error_description")).toContain("S256");
  });

  test("a resource other than this MCP endpoint, or none, is refused (invalid_target)", async () => {
    const clientId = await registerClient(server, [LOOPBACK]);
    const { challenge } = pkce();
    for (const resource of ["https://other.example/mcp", `${base}/mcp/`, `${base}`]) {
      const res = await authorize(server, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge, code_challenge_method: "S256", resource });
      expect(back(res).searchParams.get("error"), resource).toBe("invalid_target");
    }
    const none = await authorize(server, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge, code_challenge_method: "S256" });
    expect(back(none).searchParams.get("error")).toBe("invalid_target");
  });
});

describe("redirect URIs", () => {
  test("one that differs by a character, case, a trailing slash or a port: an error page, never a redirect", async () => {
    const clientId = await registerClient(server, [WEB]);
    const { challenge } = pkce();
    const near = [
      "https://agent.example/oauth/callbacc",
      "https://agent.example/oauth/Callback",
      "https://Agent.example/oauth/callback".replace("Agent", "agent") + "/",
      "https://agent.example:8443/oauth/callback",
      "https://agent.example/oauth/callback?x=1",
      "https://agent.example.evil.test/oauth/callback",
      "http://agent.example/oauth/callback",
    ];
    for (const redirect of near) {
      const res = await authorize(server, { client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", resource: `${base}/mcp` });
      expect(res.status, redirect).toBe(400);
      expect(res.headers.get("location"), redirect).toBeNull();
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(await res.text()).toContain("redirect_uri is not one the application registered");
    }
  });

  test("a loopback redirect matches on any port (RFC 8252), but not another path or host", async () => {
    const clientId = await registerClient(server, [LOOPBACK]);
    const { challenge } = pkce();
    const ok = await authorize(server, { client_id: clientId, redirect_uri: "http://127.0.0.1:61234/callback", code_challenge: challenge, code_challenge_method: "S256", resource: `${base}/mcp` });
    expect(requestIdOf(ok)).toBeString();
    for (const redirect of ["http://127.0.0.1:61234/callback/", "http://127.0.0.2:4567/callback", "http://localhost:4567/callback", "https://127.0.0.1:4567/callback"]) {
      const res = await authorize(server, { client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", resource: `${base}/mcp` });
      expect(res.status, redirect).toBe(400);
    }
  });

  test("open redirects: an unregistered redirect_uri or an unknown client is never followed; state is only echoed", async () => {
    const clientId = await registerClient(server, [WEB]);
    const { challenge } = pkce();
    const evil = await authorize(server, { client_id: clientId, redirect_uri: "https://evil.example/steal", code_challenge: challenge, code_challenge_method: "S256", resource: `${base}/mcp` });
    expect(evil.status).toBe(400);
    expect(evil.headers.get("location")).toBeNull();
    // An error that is the client's to hear (no PKCE) still goes only to the registered URI.
    const noClient = await authorize(server, { client_id: "quire_client_unknown", redirect_uri: "https://evil.example/steal" });
    expect(noClient.status).toBe(400);
    expect(noClient.headers.get("location")).toBeNull();
    // A state holding a URL is a value on the registered redirect, nothing more.
    const state = "https://evil.example/x\r\nLocation: https://evil.example/";
    const { code, redirect } = await consentedCode(server, owner, { client_id: clientId, redirect_uri: WEB, code_challenge: challenge, state });
    expect(`${redirect.origin}${redirect.pathname}`).toBe(WEB);
    expect(redirect.searchParams.get("state")).toBe(state);
    expect(code).toBeString();
    expect(redirect.searchParams.get("iss")).toBe(base);
  });
});

describe("dynamic client registration", () => {
  test("javascript:, data:, file:, http on a public host, fragments and credentials are refused", async () => {
    for (const uri of ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd", "http://agent.example/cb", "https://agent.example/cb#frag", "https://user:pw@agent.example/cb", "not a url"]) {
      const res = await fetch(`${server.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "x", redirect_uris: [uri] }) });
      expect(res.status, uri).toBe(400);
      expect(((await res.json()) as { error: string }).error, uri).toBe("invalid_redirect_uri");
    }
    const before = server.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM oauth_clients").get()!.n;
    await fetch(`${server.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [WEB, "javascript:alert(1)"] }) });
    expect(server.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM oauth_clients").get()!.n).toBe(before);
  });

  test("a registration is a public client whatever it asks; unsupported grant types are refused", async () => {
    const res = await fetch(`${server.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [WEB], token_endpoint_auth_method: "client_secret_basic" }) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.token_endpoint_auth_method).toBe("none");
    expect(body.client_secret).toBeUndefined();
    const implicit = await fetch(`${server.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [WEB], grant_types: ["implicit"] }) });
    expect(implicit.status).toBe(400);
  });
});

describe("tokens", () => {
  test("a token signed by this instance for another audience is refused at /mcp", async () => {
    const keys = await server.services.signingKeys();
    const c = await codeFor();
    const good = await exchange(server, c.clientId, c.redirect, c.code, c.verifier);
    const gid = (JSON.parse(Buffer.from(good.body.access_token.split(".")[1], "base64url").toString()) as { gid: string }).gid;
    const forge = (aud: string, typ = "at+jwt") =>
      new SignJWT({ org: owner.id, gid, client_id: c.clientId, scope: "read write" })
        .setProtectedHeader({ alg: "RS256", typ, kid: keys.kid })
        .setSubject(owner.id)
        .setIssuer(base)
        .setAudience(aud)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(keys.privateKey);
    for (const aud of ["https://other.example/mcp", `${base}/p/site/mcp`, "quire"]) {
      const res = await mcp(server, await forge(aud), "tools/list");
      expect(res.status, aud).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    // The web app's own session token is not an MCP token either.
    expect((await mcp(server, owner.accessToken, "tools/list")).status).toBe(401);
  });

  test("a refresh token replayed after the grace window ends every token of that authorization", async () => {
    const c = await codeFor();
    const t = (await exchange(server, c.clientId, c.redirect, c.code, c.verifier)).body;
    const next = (await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: c.clientId })).body;
    expect(next.access_token).toBeString();
    setSystemTime(new Date(Date.now() + 31_000));
    const replay = await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: c.clientId });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    setSystemTime();
    // The successor and both access tokens are dead too.
    expect((await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: next.refresh_token, client_id: c.clientId })).body.error).toBe("invalid_grant");
    expect((await mcp(server, next.access_token, "tools/list")).status).toBe(401);
    expect((await mcp(server, t.access_token, "tools/list")).status).toBe(401);
  });

  test("a refresh token presented by another client is refused and left usable by its own", async () => {
    const c = await codeFor();
    const t = (await exchange(server, c.clientId, c.redirect, c.code, c.verifier)).body;
    const other = await registerClient(server, [LOOPBACK]);
    expect((await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: other })).body.error).toBe("invalid_grant");
    expect((await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: c.clientId })).status).toBe(200);
  });

  test("a revoked connected app: its access token, refresh token and unused codes all stop", async () => {
    const c = await codeFor();
    const t = (await exchange(server, c.clientId, c.redirect, c.code, c.verifier)).body;
    const apps = (await owner.client.get("/api/v1/oauth/grants")).body.items as Array<{ id: string; client_id: string }>;
    const app = apps.find((a) => a.client_id === c.clientId)!;
    expect((await owner.client.delete(`/api/v1/oauth/grants/${app.id}`)).status).toBe(204);
    expect((await mcp(server, t.access_token, "tools/list")).status).toBe(401);
    expect((await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: c.clientId })).body.error).toBe("invalid_grant");
    expect((await owner.client.delete(`/api/v1/oauth/grants/${app.id}`)).status).toBe(404);
  });

  test("unknown grant types and garbage tokens get OAuth's error format", async () => {
    const res = await postForm(server, "/oauth/token", { grant_type: "password", username: "a", password: "b" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "unsupported_grant_type", error_description: expect.any(String) });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect((await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: "garbage", client_id: "quire_client_x" })).body.error).toBe("invalid_grant");
    // A public client names itself on a refresh (OAuth 2.1 §4.3.1): without client_id the request is malformed.
    expect((await postForm(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: "garbage" })).body.error).toBe("invalid_request");
    expect((await mcp(server, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "tools/list")).status).toBe(401);
  });
});

test("guessing codes or refresh tokens from one address meets a 429 after 60 a minute", async () => {
  const ip = "10.250.1.1";
  const statuses: number[] = [];
  for (let i = 0; i < 61; i++) {
    const res = await fetch(`${server.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: `guess-${i}`, client_id: "quire_client_x" }).toString(),
    });
    statuses.push(res.status);
  }
  expect(statuses.slice(0, 60).every((s) => s === 400)).toBe(true);
  expect(statuses[60]).toBe(429);
});

describe("the consent step", () => {
  async function pending() {
    const clientId = await registerClient(server, [LOOPBACK], "Consent Probe");
    const { challenge } = pkce();
    const res = await authorize(server, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge, code_challenge_method: "S256", resource: `${base}/mcp`, scope: "read" });
    return requestIdOf(res);
  }

  test("approving needs the session and the one-time consent token given to that person (CSRF)", async () => {
    const id = await pending();
    const view = await owner.client.get(`/api/v1/oauth/consent/${id}`);
    expect(view.body).toMatchObject({ client_name: "Consent Probe", redirect_host: "127.0.0.1:4567", scopes: ["read"], metadata_document: false });
    const decision = { consent_token: view.body.consent_token, approve: true, scopes: ["read"], workspace_ids: [owner.workspaceId] };
    // No session (a cross-site form carries no bearer token) → 401.
    const anonymous = await fetch(`${server.url}/api/v1/oauth/consent/${id}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(decision) });
    expect(anonymous.status).toBe(401);
    // An API key is not a session.
    const key = (await createKey(owner, ["admin"])).key;
    expect((await owner.client.post(`/api/v1/oauth/consent/${id}`, decision, { token: key })).status).toBe(401);
    // Another person cannot see or approve it.
    const mallory = await registerUser(server.url);
    expect((await mallory.client.post(`/api/v1/oauth/consent/${id}`, decision)).status).toBe(404);
    expect((await mallory.client.get(`/api/v1/oauth/consent/${id}`)).status).toBe(404);
    // The session without the right token → 403, and nothing was issued.
    expect((await owner.client.post(`/api/v1/oauth/consent/${id}`, { ...decision, consent_token: "forged" })).status).toBe(403);
    const ok = await owner.client.post(`/api/v1/oauth/consent/${id}`, decision);
    expect(ok.status).toBe(200);
    // One time: the same form again finds nothing.
    expect((await owner.client.post(`/api/v1/oauth/consent/${id}`, decision)).status).toBe(404);
  });

  test("denying sends access_denied back, and no code", async () => {
    const id = await pending();
    const view = await owner.client.get(`/api/v1/oauth/consent/${id}`);
    const res = await owner.client.post(`/api/v1/oauth/consent/${id}`, { consent_token: view.body.consent_token, approve: false });
    const to = new URL(res.body.redirect_to);
    expect(to.searchParams.get("error")).toBe("access_denied");
    expect(to.searchParams.get("code")).toBeNull();
  });

  test("a workspace the person cannot reach cannot be handed over", async () => {
    const id = await pending();
    const view = await owner.client.get(`/api/v1/oauth/consent/${id}`);
    const stranger = await registerUser(server.url);
    const res = await owner.client.post(`/api/v1/oauth/consent/${id}`, { consent_token: view.body.consent_token, approve: true, scopes: ["read"], workspace_ids: [stranger.workspaceId] });
    expect(res.status).toBe(404);
  });

  test("the consent screen cannot be framed (frame-ancestors 'none')", async () => {
    const id = await pending();
    const res = await fetch(`${server.url}/oauth/consent?request=${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});
