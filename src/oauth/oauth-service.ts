import { createHash } from "node:crypto";
import type { Db } from "../db/database.ts";
import { constantTimeEqual, sha256Hex } from "../core/crypto.ts";
import { randomToken } from "../core/ids.ts";
import { ForbiddenError, NotFoundError } from "../core/errors.ts";
import type { Principal } from "../core/principal.ts";
import { parseInput } from "../core/validate.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { Users } from "../identity/users.ts";
import { OAuthProtocolError } from "./errors.ts";
import { redirectRegistered } from "./redirect-uris.ts";
import type { OAuthClients } from "./clients.ts";
import type { Grants, GrantRow } from "./grants.ts";
import type { McpAccessTokens } from "./access-tokens.ts";
import { consentDecisionInput, OAUTH_SCOPES, type GrantJson, type OAuthScope, type consentOutput } from "./schemas.ts";
import type { z } from "zod";

/** A pending authorization waits this long for the person's consent. */
const REQUEST_TTL_MS = 10 * 60 * 1000;
/** An authorization code must be exchanged within this (and only once). */
const CODE_TTL_MS = 60 * 1000;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

type AuthorizeOutcome = { kind: "error_page"; message: string } | { kind: "redirect"; location: string };

interface RequestRow {
  id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  scopes: string;
  code_challenge: string;
  state: string | null;
  resource: string;
  user_id: string | null;
  consent_token_hash: string | null;
  expires_at: number;
}

interface CodeRow {
  code_hash: string;
  client_id: string;
  user_id: string;
  org_id: string;
  client_name: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scopes: string;
  workspace_ids: string;
  expires_at: number;
  used_at: number | null;
  grant_id: string | null;
}

interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

function parseScopes(raw: string | undefined | null): OAuthScope[] {
  const asked = (raw ?? "").split(" ").filter((s) => s !== "");
  const unknown = asked.filter((s) => !(OAUTH_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new OAuthProtocolError("invalid_scope", `unknown scope ${JSON.stringify(unknown[0])}; the scopes are ${OAUTH_SCOPES.join(", ")}`);
  return OAUTH_SCOPES.filter((s) => asked.includes(s));
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * Quire as the OAuth 2.1 authorization server of its own MCP endpoint
 * (docs/decisions/mcp-authorization.md): the authorization request and its consent, codes bound
 * to PKCE S256 and to the MCP resource, tokens and refresh, revocation, and the principal a token
 * stands for on every MCP request (the person, capped by the consented scopes and workspaces and
 * by their roles as they are now).
 */
export class OAuthService {
  readonly issuer: string;
  readonly resource: string;

  constructor(
    private readonly deps: {
      db: Db;
      baseUrl: string;
      clients: OAuthClients;
      grants: Grants;
      tokens: McpAccessTokens;
      permissions: Permissions;
      workspaces: WorkspaceRecords;
      users: Users;
      /** A published members-only site by its slug (its workspace), or null: the sites whose MCP endpoints take tokens. */
      membersOnlySite(slug: string): { workspaceId: string; name: string } | null;
    },
  ) {
    this.issuer = deps.baseUrl;
    this.resource = deps.tokens.audience;
  }

  get clients(): OAuthClients {
    return this.deps.clients;
  }

  /**
   * What a resource indicator names: the workspace endpoint (`{BASE_URL}/mcp`, every scope, the
   * workspaces the person picks), or a published members-only site's endpoint
   * (`{BASE_URL}/p/{slug}/mcp`: read only, that site's workspace only), or nothing this server
   * issues tokens for (null).
   */
  target(resource: string | undefined): { resource: string; site: { slug: string; workspaceId: string; name: string } | null } | null {
    if (resource === this.resource) return { resource, site: null };
    const prefix = `${this.issuer}/p/`;
    if (resource === undefined || !resource.startsWith(prefix) || !resource.endsWith("/mcp")) return null;
    // The slug is checked by the site lookup (a malformed one names no site).
    const slug = resource.slice(prefix.length, -"/mcp".length);
    const site = this.deps.membersOnlySite(slug);
    return site ? { resource, site: { slug, ...site } } : null;
  }

  /** RFC 9728: what an MCP endpoint is and who issues its tokens (`resource` a site's: its own document). */
  protectedResourceMetadata(resource: string = this.resource) {
    const site = this.target(resource)?.site ?? null;
    return {
      resource,
      authorization_servers: [this.issuer],
      scopes_supported: site ? ["read"] : [...OAUTH_SCOPES],
      bearer_methods_supported: ["header"],
      resource_name: site ? `${site.name} (published site)` : "Quire",
    };
  }

  /** RFC 8414. */
  authorizationServerMetadata() {
    const base = this.issuer;
    return {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      scopes_supported: [...OAUTH_SCOPES],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    };
  }

  /**
   * `GET /oauth/authorize`. The client and its redirect URI are checked first: until both are
   * known good, a problem is shown on Quire's own error page and nobody is redirected anywhere (an
   * authorization endpoint that redirects to an unchecked URI is an open redirector). After that,
   * a problem goes back to the client as OAuth says (`error` on the redirect URI), and a good
   * request waits for the person on the consent screen.
   */
  async authorize(query: Record<string, unknown>, nowMs: number): Promise<AuthorizeOutcome> {
    const clientId = str(query.client_id);
    const redirectUri = str(query.redirect_uri);
    if (!clientId || clientId.length > 2000) return { kind: "error_page", message: "The request names no client (client_id)." };
    let client;
    try {
      client = await this.deps.clients.resolve(clientId, nowMs);
    } catch (error) {
      if (error instanceof OAuthProtocolError) return { kind: "error_page", message: `The application could not be identified: ${error.description}.` };
      throw error;
    }
    if (!redirectUri || !redirectRegistered(client.redirect_uris, redirectUri)) {
      return { kind: "error_page", message: "The redirect_uri is not one the application registered, so the authorization cannot continue." };
    }
    const state = str(query.state);
    const back = (error: string, description: string): AuthorizeOutcome => ({ kind: "redirect", location: this.redirectWith(redirectUri, { error, error_description: description, state }) });
    if (state !== undefined && state.length > 1000) return back("invalid_request", "state is longer than 1000 characters");
    if (str(query.response_type) !== "code") return back("unsupported_response_type", "response_type must be code");
    const method = str(query.code_challenge_method);
    const challenge = str(query.code_challenge);
    if (!challenge || method === undefined) return back("invalid_request", "PKCE is required: code_challenge and code_challenge_method=S256");
    if (method !== "S256") return back("invalid_request", "code_challenge_method must be S256 (plain is not accepted)");
    if (!PKCE_CHALLENGE.test(challenge)) return back("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters)");
    const resource = str(query.resource);
    if (resource === undefined) return back("invalid_target", `resource is required and must be ${this.resource} or a members-only site's MCP endpoint`);
    const target = this.target(resource);
    if (!target) return back("invalid_target", `this server issues tokens only for ${this.resource} and members-only sites' MCP endpoints`);
    let scopes: OAuthScope[];
    try {
      scopes = parseScopes(str(query.scope));
    } catch (error) {
      return back("invalid_scope", (error as OAuthProtocolError).description);
    }
    // A site's endpoint is read-only: whatever was asked, reading is what can be given (RFC 6749 §3.3).
    if (target.site) scopes = ["read"];
    if (scopes.length === 0) scopes = ["read"];
    const id = randomToken(24);
    this.purgeExpired(nowMs);
    this.deps.db
      .query(
        `INSERT INTO oauth_requests (id, client_id, client_name, redirect_uri, scopes, code_challenge, state, resource, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, client.client_id, client.client_name, redirectUri, scopes.join(" "), challenge, state ?? null, resource, nowMs + REQUEST_TTL_MS);
    return { kind: "redirect", location: `/oauth/consent?request=${encodeURIComponent(id)}` };
  }

  private redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    url.searchParams.set("iss", this.issuer);
    return url.href;
  }

  /**
   * Forgets what can never be used again, at most once a minute (on the next authorization):
   * requests and codes past their life, and grants whose refresh tokens all expired (an app unused
   * for 30 days), which would otherwise stay listed as connected.
   */
  private purgeExpired(nowMs: number): void {
    if (nowMs - this.purgedAt < 60_000) return;
    this.purgedAt = nowMs;
    this.deps.db.query("DELETE FROM oauth_requests WHERE expires_at <= ?").run(nowMs);
    this.deps.db.query("DELETE FROM oauth_codes WHERE expires_at <= ? AND (used_at IS NULL OR used_at <= ?)").run(nowMs, nowMs - 24 * 3600 * 1000);
    this.deps.grants.purgeExpired(nowMs);
  }
  private purgedAt = 0;

  private pending(id: string, userId: string, nowMs: number): RequestRow {
    const row = this.deps.db.query<RequestRow, [string]>("SELECT * FROM oauth_requests WHERE id = ?").get(id);
    // A request that is gone, expired, or opened by someone else does not exist for this person.
    if (!row || row.expires_at <= nowMs || (row.user_id !== null && row.user_id !== userId)) {
      throw new NotFoundError("This authorization request has expired or does not exist; start again from the application");
    }
    return row;
  }

  /** What a consent may give for `resource`: a site's workspace alone, else every workspace the person reaches. */
  private offered(userId: string, resource: string) {
    const all = this.reachable(userId);
    const target = this.target(resource);
    if (!target) return [];
    return target.site ? all.filter((w) => w.id === target.site!.workspaceId) : all;
  }

  /** The workspaces a person may hand to a client: every one they reach now, with their role. */
  private reachable(userId: string) {
    const rows = this.deps.workspaces.listReachableBy(userId, { onlyId: null, afterId: null, limit: 1000 });
    return rows.flatMap((w) => {
      const role = this.deps.permissions.roleIn(userId, w);
      return role === null ? [] : [{ id: w.id, slug: w.slug, name: w.name, role, org_id: w.org_id }];
    });
  }

  /**
   * What the consent screen shows, with a one-time consent token bound to this person and this
   * request: the approval needs both the session and this token (a page elsewhere cannot approve).
   */
  consentView(principal: Extract<Principal, { kind: "session" }>, requestId: string, nowMs: number): z.infer<typeof consentOutput> {
    const row = this.pending(requestId, principal.userId, nowMs);
    const consentToken = randomToken(32);
    this.deps.db.query("UPDATE oauth_requests SET user_id = ?, consent_token_hash = ? WHERE id = ?").run(principal.userId, sha256Hex(consentToken), row.id);
    return {
      request_id: row.id,
      client_id: row.client_id,
      client_name: row.client_name,
      redirect_uri: row.redirect_uri,
      redirect_host: new URL(row.redirect_uri).host,
      metadata_document: row.client_id.includes("://"),
      scopes: parseScopes(row.scopes),
      workspaces: this.offered(principal.userId, row.resource).map(({ org_id: _org, ...w }) => w),
      site: this.target(row.resource)?.site?.name ?? null,
      consent_token: consentToken,
    };
  }

  /** The person's answer: a code for the client (approve) or `access_denied`, as the URL to send the browser to. */
  decide(principal: Extract<Principal, { kind: "session" }>, requestId: string, body: unknown, nowMs: number): { redirect_to: string } {
    const input = parseInput(consentDecisionInput, body);
    const { db } = this.deps;
    const row = db.transaction(() => {
      const r = this.pending(requestId, principal.userId, nowMs);
      if (r.user_id !== principal.userId || r.consent_token_hash === null || !constantTimeEqual(r.consent_token_hash, sha256Hex(input.consent_token))) {
        throw new ForbiddenError("This consent form is not valid any more; reload the page to see the request again");
      }
      db.query("DELETE FROM oauth_requests WHERE id = ?").run(r.id);
      return r;
    })();
    const state = row.state ?? undefined;
    if (!input.approve) return { redirect_to: this.redirectWith(row.redirect_uri, { error: "access_denied", error_description: "the person declined", state }) };
    const asked = parseScopes(row.scopes);
    const scopes = OAUTH_SCOPES.filter((s) => input.scopes.includes(s));
    if (scopes.length === 0) throw new ForbiddenError("Choose at least one scope, or deny");
    if (scopes.some((s) => !asked.includes(s))) throw new ForbiddenError("A scope the application did not ask for cannot be given");
    const reachable = new Map(this.offered(principal.userId, row.resource).map((w) => [w.id, w.org_id]));
    const workspaceIds = [...new Set(input.workspace_ids)];
    if (workspaceIds.length === 0) throw new ForbiddenError("Choose at least one workspace, or deny");
    if (workspaceIds.some((id) => !reachable.has(id))) throw new NotFoundError("Workspace not found");
    // A grant acts inside one organization, like an API key (a key reaches no other organization).
    const orgs = new Set(workspaceIds.map((id) => reachable.get(id)!));
    if (orgs.size > 1) throw new ForbiddenError("Choose workspaces of one organization; connect the app again for another");
    const orgId = [...orgs][0]!;
    const code = randomToken(32);
    db.query(
      `INSERT INTO oauth_codes (code_hash, client_id, user_id, org_id, client_name, redirect_uri, code_challenge, resource, scopes, workspace_ids, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(sha256Hex(code), row.client_id, principal.userId, orgId, row.client_name, row.redirect_uri, row.code_challenge, row.resource, scopes.join(" "), JSON.stringify(workspaceIds), nowMs + CODE_TTL_MS);
    return { redirect_to: this.redirectWith(row.redirect_uri, { code, state }) };
  }

  /** `POST /oauth/token`. */
  async token(form: Record<string, unknown>, nowMs: number): Promise<TokenAnswer> {
    const grantType = str(form.grant_type);
    if (grantType === "authorization_code") return this.exchangeCode(form, nowMs);
    if (grantType === "refresh_token") return this.refresh(form, nowMs);
    throw new OAuthProtocolError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
  }

  /** A token request's `resource`, when given, must be the one the authorization was made for, and still a resource of this server. */
  private checkResource(asked: string | undefined, granted: string): void {
    if (asked !== undefined && asked !== granted) throw new OAuthProtocolError("invalid_target", `this authorization is for ${granted}`);
    if (!this.target(granted)) throw new OAuthProtocolError("invalid_target", `${granted} is not a resource of this server any more`);
  }

  private async exchangeCode(form: Record<string, unknown>, nowMs: number): Promise<TokenAnswer> {
    const code = str(form.code);
    const verifier = str(form.code_verifier);
    const redirectUri = str(form.redirect_uri);
    const clientId = str(form.client_id);
    if (!code || code.length > 200) throw new OAuthProtocolError("invalid_request", "code is required");
    const { db } = this.deps;
    // The code is spent by the first attempt, good or bad: it can be tried exactly once.
    const row = db.transaction(() => {
      const r = db.query<CodeRow, [string]>("SELECT * FROM oauth_codes WHERE code_hash = ?").get(sha256Hex(code));
      if (!r) return null;
      if (r.used_at !== null) {
        // A code presented twice was stolen or replayed: what its first use produced ends too (RFC 6749 §4.1.2).
        if (r.grant_id !== null) this.deps.grants.delete(r.grant_id);
        return "replayed" as const;
      }
      db.query("UPDATE oauth_codes SET used_at = ? WHERE code_hash = ?").run(nowMs, r.code_hash);
      return r;
    })();
    if (row === null) throw new OAuthProtocolError("invalid_grant", "the authorization code is not valid");
    if (row === "replayed") throw new OAuthProtocolError("invalid_grant", "the authorization code was already used; the authorization it produced is revoked");
    if (row.expires_at <= nowMs) throw new OAuthProtocolError("invalid_grant", "the authorization code has expired");
    if (clientId !== row.client_id) throw new OAuthProtocolError("invalid_grant", "the authorization code was issued to another client");
    if (redirectUri !== row.redirect_uri) throw new OAuthProtocolError("invalid_grant", "redirect_uri is not the one the authorization was made with");
    if (!verifier) throw new OAuthProtocolError("invalid_request", "code_verifier is required (PKCE)");
    const computed = createHash("sha256").update(verifier).digest("base64url");
    if (!PKCE_VERIFIER.test(verifier) || !constantTimeEqual(computed, row.code_challenge)) {
      throw new OAuthProtocolError("invalid_grant", "code_verifier does not match the code_challenge");
    }
    this.checkResource(str(form.resource), row.resource);
    // A metadata-document client is looked up again: a document whose redirect URIs changed since
    // the consent no longer vouches for the URI the code went to.
    const client = await this.deps.clients.resolve(row.client_id, nowMs).catch((error: unknown) => {
      if (error instanceof OAuthProtocolError) throw new OAuthProtocolError("invalid_client", error.description, 401);
      throw error;
    });
    if (!redirectRegistered(client.redirect_uris, row.redirect_uri)) {
      throw new OAuthProtocolError("invalid_grant", "the client no longer lists the redirect_uri this authorization was made for");
    }
    const scopes = parseScopes(row.scopes);
    const { grant, refreshToken } = this.deps.grants.create(
      { userId: row.user_id, orgId: row.org_id, clientId: row.client_id, clientName: row.client_name, redirectUri: row.redirect_uri, scopes, workspaceIds: JSON.parse(row.workspace_ids) as string[], resource: row.resource },
      nowMs,
    );
    db.query("UPDATE oauth_codes SET grant_id = ? WHERE code_hash = ?").run(grant.id, row.code_hash);
    const access = await this.deps.tokens.issue({ audience: grant.resource, userId: grant.user_id, orgId: grant.org_id, grantId: grant.id, clientId: grant.client_id, scopes }, nowMs);
    return { access_token: access.token, token_type: "Bearer", expires_in: access.expiresIn, refresh_token: refreshToken, scope: scopes.join(" ") };
  }

  private async refresh(form: Record<string, unknown>, nowMs: number): Promise<TokenAnswer> {
    const token = str(form.refresh_token);
    if (!token || token.length > 200) throw new OAuthProtocolError("invalid_request", "refresh_token is required");
    // A public client names itself (OAuth 2.1 §4.3.1), and a refresh token works for its own client only.
    const clientId = str(form.client_id);
    if (!clientId) throw new OAuthProtocolError("invalid_request", "client_id is required");
    const grantId = this.deps.grants.grantOfRefreshToken(token);
    const owner = grantId === null ? null : this.deps.grants.get(grantId);
    if (owner && clientId !== owner.client_id) throw new OAuthProtocolError("invalid_grant", "the refresh token was issued to another client");
    if (owner) this.checkResource(str(form.resource), owner.resource);
    const asked = str(form.scope);
    const narrowed = asked === undefined ? null : parseScopes(asked);
    const result = this.deps.grants.rotate(token, nowMs);
    if (result.kind === "invalid") throw new OAuthProtocolError("invalid_grant", "the refresh token is not valid");
    if (result.kind === "replayed") throw new OAuthProtocolError("invalid_grant", "the refresh token was already used; the authorization is revoked");
    const granted = parseScopes(result.grant.scopes);
    if (narrowed && narrowed.some((s) => !granted.includes(s))) throw new OAuthProtocolError("invalid_scope", "a refresh cannot widen the scopes that were granted");
    const scopes = narrowed && narrowed.length > 0 ? narrowed : granted;
    this.deps.grants.touch(result.grant.id, nowMs);
    const g = result.grant;
    const access = await this.deps.tokens.issue({ audience: g.resource, userId: g.user_id, orgId: g.org_id, grantId: g.id, clientId: g.client_id, scopes }, nowMs);
    return { access_token: access.token, token_type: "Bearer", expires_in: access.expiresIn, refresh_token: result.refreshToken, scope: scopes.join(" ") };
  }

  /**
   * `POST /oauth/revoke` (RFC 7009): either token ends the whole grant — its refresh tokens and,
   * since every request looks the grant up, its access tokens at once. An unknown token is not an
   * error (the answer is the same, so the endpoint tells nothing about tokens).
   */
  async revoke(form: Record<string, unknown>): Promise<void> {
    const token = str(form.token);
    if (!token) throw new OAuthProtocolError("invalid_request", "token is required");
    const fromRefresh = token.length <= 200 ? this.deps.grants.grantOfRefreshToken(token) : null;
    if (fromRefresh) {
      this.deps.grants.delete(fromRefresh);
      return;
    }
    const claims = await this.deps.tokens.verify(token, null);
    if (claims && this.target(claims.audience)) this.deps.grants.delete(claims.grantId);
  }

  /**
   * The principal an access token stands for on an MCP request, or null. The grant is read on
   * every request (a revoked grant stops at once); the scopes are the token's within the grant's;
   * the workspaces are the consented ones, and the person's roles in them are checked on each call
   * by the permission check as for any caller (removed from a workspace: gone at once).
   */
  async authenticate(token: string, nowMs: number, resource: string = this.resource): Promise<Principal | null> {
    const claims = await this.deps.tokens.verify(token, resource);
    if (!claims) return null;
    const grant = this.deps.grants.get(claims.grantId);
    if (!grant || grant.user_id !== claims.userId || grant.client_id !== claims.clientId || grant.org_id !== claims.orgId || grant.resource !== resource) return null;
    const granted = parseScopes(grant.scopes);
    const workspaceIds = JSON.parse(grant.workspace_ids) as string[];
    this.deps.grants.touch(grant.id, nowMs);
    return {
      kind: "api_key",
      userId: grant.user_id,
      orgId: grant.org_id,
      keyId: `oauth:${grant.id}`,
      scopes: claims.scopes.filter((s) => granted.includes(s)),
      workspaceId: workspaceIds.length === 1 ? workspaceIds[0]! : null,
      workspaceIds,
    };
  }

  private present(g: GrantRow): GrantJson {
    const user = this.deps.users.byId(g.user_id);
    const ids = JSON.parse(g.workspace_ids) as string[];
    return {
      id: g.id,
      client_id: g.client_id,
      client_name: g.client_name,
      redirect_host: new URL(g.redirect_uri).host,
      scopes: parseScopes(g.scopes),
      workspaces: ids.flatMap((id) => {
        const w = this.deps.workspaces.byId(id);
        return w ? [{ id: w.id, slug: w.slug, name: w.name }] : [];
      }),
      created_at: g.created_at,
      last_used_at: g.last_used_at,
      user: { id: g.user_id, name: user?.name ?? "", email: user?.email ?? "" },
    };
  }

  /** The person's connected apps. */
  listMine(principal: Extract<Principal, { kind: "session" }>): { items: GrantJson[] } {
    return { items: this.deps.grants.ofUser(principal.userId).map((g) => this.present(g)) };
  }

  /** Every connected app in the organization: its Super Admin only. */
  listOrganization(principal: Extract<Principal, { kind: "session" }>): { items: GrantJson[] } {
    if (!this.deps.permissions.isSuperAdminOf(principal.userId, principal.orgId)) throw new ForbiddenError("Only the organization's Super Admin sees every connected app");
    return { items: this.deps.grants.ofOrg(principal.orgId).map((g) => this.present(g)) };
  }

  /** Revokes a connected app: its person, or the Super Admin of its organization. */
  revokeGrant(principal: Extract<Principal, { kind: "session" }>, id: string): void {
    const g = this.deps.grants.get(id);
    const allowed = g !== null && (g.user_id === principal.userId || (g.org_id === principal.orgId && this.deps.permissions.isSuperAdminOf(principal.userId, g.org_id)));
    if (!g || !allowed) throw new NotFoundError("Connected app not found");
    this.deps.grants.delete(id);
  }
}
