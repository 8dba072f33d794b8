/**
 * What the MCP authorization tests share: a server whose BASE_URL is its real loopback address
 * (clients discover the authorization server from it), PKCE pairs, and the steps of an
 * authorization a person goes through, over HTTP.
 */
import { createHash, randomBytes } from "node:crypto";
import { freePort, startTestServer, type TestServer } from "../helpers/server.ts";
import { nextIp } from "../helpers/client.ts";
import type { TestUser } from "../helpers/factories.ts";

export async function oauthServer(env: Record<string, string> = {}): Promise<TestServer> {
  const port = await freePort();
  return startTestServer({ BASE_URL: `http://127.0.0.1:${port}`, OAUTH_CLIENT_METADATA_ALLOWLIST_PRIVATE: "true", ...env }, { port });
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** Form-encoded POST from its own client address; the answer's status, JSON and headers. */
export async function postForm(server: TestServer, path: string, form: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": nextIp() },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text), headers: res.headers };
}

export async function registerClient(server: TestServer, redirectUris: string[], name = "Test Agent"): Promise<string> {
  const res = await fetch(`${server.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextIp() },
    body: JSON.stringify({ client_name: name, redirect_uris: redirectUris, token_endpoint_auth_method: "none" }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri: string;
  code_challenge?: string;
  code_challenge_method?: string;
  resource?: string;
  scope?: string;
  state?: string;
  response_type?: string;
}

/** `GET /oauth/authorize` without following the redirect. */
export async function authorize(server: TestServer, params: AuthorizeParams): Promise<Response> {
  const query = new URLSearchParams({ response_type: "code", ...params } as Record<string, string>);
  return fetch(`${server.url}/oauth/authorize?${query}`, { redirect: "manual", headers: { "x-forwarded-for": nextIp() } });
}

/** The consent request id the authorization endpoint sent the browser to. */
export function requestIdOf(res: Response): string {
  const location = res.headers.get("location") ?? "";
  const match = /^\/oauth\/consent\?request=([A-Za-z0-9_-]+)$/.exec(location);
  if (!match) throw new Error(`not sent to the consent screen: ${res.status} ${location}`);
  return match[1]!;
}

/**
 * The whole person's part over HTTP: authorize, open the consent request, approve (with the
 * scopes and workspaces given, or all that were asked) — the code and state the client receives.
 */
export async function consentedCode(
  server: TestServer,
  user: TestUser,
  params: AuthorizeParams & { code_challenge: string },
  choose: { scopes?: string[]; workspace_ids?: string[] } = {},
): Promise<{ code: string; state: string | null; redirect: URL }> {
  const res = await authorize(server, { code_challenge_method: "S256", resource: `${server.config.baseUrl}/mcp`, scope: "read write", ...params });
  const id = requestIdOf(res);
  const view = await user.client.get(`/api/v1/oauth/consent/${id}`);
  if (view.status !== 200) throw new Error(`consent view: ${view.status} ${view.text}`);
  const decision = await user.client.post(`/api/v1/oauth/consent/${id}`, {
    consent_token: view.body.consent_token,
    approve: true,
    scopes: choose.scopes ?? view.body.scopes,
    workspace_ids: choose.workspace_ids ?? [user.workspaceId],
  });
  if (decision.status !== 200) throw new Error(`consent: ${decision.status} ${decision.text}`);
  const redirect = new URL(decision.body.redirect_to);
  return { code: redirect.searchParams.get("code")!, state: redirect.searchParams.get("state"), redirect };
}

/** Code → tokens for a public client. */
export async function exchange(server: TestServer, clientId: string, redirectUri: string, code: string, verifier: string) {
  return postForm(server, "/oauth/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: verifier,
    resource: `${server.config.baseUrl}/mcp`,
  });
}

/** One MCP request (2026-07-28 era) with a bearer token: the HTTP status, headers and JSON-RPC answer. */
export async function mcp(server: TestServer, token: string, method: string, params: Record<string, unknown> = {}, name?: string): Promise<{ status: number; headers: Headers; body: any }> {
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
      "x-forwarded-for": nextIp(),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
  });
  const text = await res.text();
  const data = text.trim().startsWith("{") || text === "" ? text : text.split("\n").filter((l) => l.startsWith("data:")).pop()!.slice(5);
  return { status: res.status, headers: res.headers, body: data === "" ? null : JSON.parse(data) };
}
