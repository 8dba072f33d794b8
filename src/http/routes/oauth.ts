import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requireSession } from "../guards.ts";
import { nowMs } from "../../core/clock.ts";
import { NotFoundError } from "../../core/errors.ts";
import { escapeHtml } from "../../core/escape.ts";
import { OAuthProtocolError } from "../../oauth/errors.ts";
import {
  authorizeQuery,
  consentDecisionInput,
  consentDecisionOutput,
  consentOutput,
  grantListOutput,
  registerInput,
  registrationOutput,
  revokeInput,
  tokenInput,
  tokenOutput,
} from "../../oauth/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * The endpoints OAuth clients call from anywhere (a browser-based MCP client included) answer any
 * origin: they take no cookie and the token endpoint's answers are bound to PKCE, so CORS adds no
 * reach an attacker lacks (docs/decisions/mcp-authorization.md).
 */
const OPEN_CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-max-age": "600",
};
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };
/** The error page's policy: nothing to load, run or frame. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body === null ? null : JSON.stringify(body), { status, headers: { ...(body === null ? {} : { "content-type": "application/json" }), ...OPEN_CORS, ...NO_STORE, ...headers } });
}

/** RFC 6749 §5.2: `{error, error_description}`; a failed client authentication is 401. */
function oauthError(error: unknown): Response {
  if (error instanceof OAuthProtocolError) {
    const status = error.error === "invalid_client" ? 401 : error.status;
    return json({ error: error.error, error_description: error.description }, status);
  }
  throw error;
}

async function formOf(request: Request): Promise<Record<string, string>> {
  const type = request.headers.get("content-type") ?? "";
  const text = await request.text();
  if (type.includes("application/json")) {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"));
      }
    } catch {
      // answered below as an empty form
    }
    throw new OAuthProtocolError("invalid_request", "the body must be application/x-www-form-urlencoded");
  }
  const params = new URLSearchParams(text);
  const out: Record<string, string> = {};
  for (const [k, v] of params) {
    // A parameter sent twice is ambiguous, and RFC 6749 §3.1 says to refuse it.
    if (k in out) throw new OAuthProtocolError("invalid_request", `${k} is sent more than once`);
    out[k] = v;
  }
  return out;
}

function errorPage(message: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Authorization failed · Quire</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}</style></head>
<body><h1>This authorization cannot continue</h1><p id="oauth-error">${escapeHtml(message)}</p><p>Close this window and try connecting again from the application.</p></body></html>`;
  return new Response(html, {
    status: 400,
    headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": PAGE_CSP, "x-frame-options": "DENY", "referrer-policy": "no-referrer", ...NO_STORE },
  });
}

/**
 * The MCP authorization server (docs/decisions/mcp-authorization.md): the
 * protected resource and authorization server metadata, the OAuth endpoints under /oauth/, and
 * the consent and connected-apps API the web app uses.
 */
export function oauthRoutes(services: Services) {
  const resourceMetadata = () => json(services.oauth.protectedResourceMetadata(), 200, { "cache-control": "public, max-age=300" });
  const preflight = () => new Response(null, { status: 204, headers: OPEN_CORS });
  return (
    new Elysia({ name: "quire-oauth" })
      .use(httpCore(services))
      .get("/.well-known/oauth-protected-resource", resourceMetadata)
      .get("/.well-known/oauth-protected-resource/mcp", resourceMetadata)
      // A members-only site's MCP endpoint is a resource of its own; any other site has none.
      .get("/.well-known/oauth-protected-resource/p/:slug/mcp", ({ params }) => {
        const resource = `${services.config.baseUrl.replace(/\/+$/, "")}/p/${params.slug}/mcp`;
        if (!services.oauth.target(resource)) throw new NotFoundError("No such protected resource");
        return json(services.oauth.protectedResourceMetadata(resource), 200, { "cache-control": "public, max-age=300" });
      })
      .get("/.well-known/oauth-authorization-server", () => json(services.oauth.authorizationServerMetadata(), 200, { "cache-control": "public, max-age=300" }))
      .options("/.well-known/*", preflight)
      .get("/oauth/authorize", async ({ request }) => {
        const query = Object.fromEntries(new URL(request.url).searchParams);
        const outcome = await services.oauth.authorize(query, nowMs());
        if (outcome.kind === "error_page") return errorPage(outcome.message);
        return new Response(null, { status: 302, headers: { location: outcome.location, ...NO_STORE, "referrer-policy": "no-referrer" } });
      })
      .post(
        "/oauth/token",
        async ({ request }) => {
          try {
            return json(await services.oauth.token(await formOf(request), nowMs()));
          } catch (error) {
            return oauthError(error);
          }
        },
        { parse: "none" },
      )
      .post(
        "/oauth/register",
        async ({ request }) => {
          let body: unknown;
          try {
            body = JSON.parse(await request.text());
          } catch {
            return json({ error: "invalid_client_metadata", error_description: "the body must be a JSON object" }, 400);
          }
          try {
            return json(services.oauth.clients.register(body, nowMs()), 201);
          } catch (error) {
            return oauthError(error);
          }
        },
        { parse: "none" },
      )
      .post(
        "/oauth/revoke",
        async ({ request }) => {
          try {
            await services.oauth.revoke(await formOf(request));
            return json(null, 200);
          } catch (error) {
            return oauthError(error);
          }
        },
        { parse: "none" },
      )
      .options("/oauth/token", preflight)
      .options("/oauth/register", preflight)
      .options("/oauth/revoke", preflight)
      // The consent screen's calls: a signed-in session only (never a key or an app's token).
      .get("/api/v1/oauth/consent/:id", ({ principal, params }) => services.oauth.consentView(requireSession(principal), params.id, nowMs()))
      .post("/api/v1/oauth/consent/:id", ({ principal, params, body }) => services.oauth.decide(requireSession(principal), params.id, body, nowMs()))
      .get("/api/v1/oauth/grants", ({ principal }) => services.oauth.listMine(requireSession(principal)))
      .get("/api/v1/oauth/grants/organization", ({ principal }) => services.oauth.listOrganization(requireSession(principal)))
      .delete("/api/v1/oauth/grants/:id", ({ principal, params, set }) => {
        services.oauth.revokeGrant(requireSession(principal), params.id);
        set.status = 204;
      })
  );
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const oauthDocs: RouteDocs = {
  "GET /.well-known/oauth-protected-resource": { summary: "Protected resource metadata of the MCP endpoint (RFC 9728)", tag: "oauth", auth: "public" },
  "GET /.well-known/oauth-protected-resource/mcp": { summary: "Protected resource metadata of /mcp, path-suffixed form (RFC 9728)", tag: "oauth", auth: "public" },
  "GET /.well-known/oauth-protected-resource/p/:slug/mcp": { summary: "Protected resource metadata of a members-only site's MCP endpoint (RFC 9728)", tag: "oauth", auth: "public" },
  "GET /.well-known/oauth-authorization-server": { summary: "Authorization server metadata (RFC 8414)", tag: "oauth", auth: "public" },
  "GET /oauth/authorize": {
    summary: "Authorization request (code flow, PKCE S256, resource indicator): redirects to the consent screen, or shows an error page for an unknown client or redirect URI",
    tag: "oauth",
    auth: "public",
    query: authorizeQuery,
    status: 302,
  },
  "POST /oauth/token": { summary: "Token endpoint: authorization_code or refresh_token; errors as RFC 6749 §5.2", tag: "oauth", auth: "public", body: tokenInput, bodyType: "application/x-www-form-urlencoded", response: tokenOutput },
  "POST /oauth/register": { summary: "Dynamic client registration (RFC 7591), public clients only", tag: "oauth", auth: "public", body: registerInput, status: 201, response: registrationOutput },
  "POST /oauth/revoke": { summary: "Token revocation (RFC 7009): either token ends its whole authorization", tag: "oauth", auth: "public", body: revokeInput, bodyType: "application/x-www-form-urlencoded" },
  "GET /api/v1/oauth/consent/:id": { summary: "An authorization request waiting for the signed-in person's consent, with a one-time consent token", tag: "oauth", response: consentOutput },
  "POST /api/v1/oauth/consent/:id": { summary: "Approve (possibly narrowed) or deny an authorization request; answers where to send the browser", tag: "oauth", body: consentDecisionInput, response: consentDecisionOutput },
  "GET /api/v1/oauth/grants": { summary: "The signed-in person's connected apps", tag: "oauth", response: grantListOutput },
  "GET /api/v1/oauth/grants/organization": { summary: "Every connected app in the organization (its Super Admin)", tag: "oauth", response: grantListOutput },
  "DELETE /api/v1/oauth/grants/:id": { summary: "Revoke a connected app: its tokens stop at once", tag: "oauth", status: 204 },
};
