import type { McpClientConfigOutput } from "../../ai/schemas.ts";
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { bearer } from "../authenticate.ts";
import { ForbiddenError, UnauthorizedError } from "../../core/errors.ts";
import { requireSession } from "../guards.ts";
import { basename } from "node:path";
import { mcpHttp, type McpHttpOptions } from "../../mcp/http.ts";
import { mcpClientConfigOutput } from "../../ai/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** The challenge of a 401 where no authorization server serves this endpoint (`quire mcp-server`): a Bearer API key. */
const API_KEY_CHALLENGE = 'Bearer realm="quire", error="invalid_token", error_description="an API key (quire_live_...) is required"';

/**
 * `POST /mcp` (and GET/DELETE for the 2025 era's session operations, which the stateless endpoint
 * answers 405): the MCP server over Streamable HTTP. A browser's Origin must be the server's own or
 * on the list (403 otherwise); listed origins get CORS headers.
 *
 * With `oauth` (the main server) the endpoint is an OAuth 2.1 protected resource: an API key or an
 * access token from Quire's own authorization server (src/oauth/, audience checked on every
 * request) is accepted, and a request with neither is told where the resource metadata is
 * (RFC 9728). `quire mcp-server` holds the instance lock, so no authorization server runs beside
 * it: it takes API keys only (docs/decisions/mcp-authorization.md).
 */
export function mcpRoutes(services: Services, opts: McpHttpOptions & { oauth?: boolean }) {
  const base = services.config.baseUrl.replace(/\/+$/, "");
  const resourceMetadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
  const mcp = mcpHttp(services, opts.oauth ? { ...opts, resourceMetadataUrl } : opts);
  services.closers.push(() => mcp.close());
  const challenge = (tokenGiven: boolean) =>
    opts.oauth
      ? `Bearer resource_metadata="${resourceMetadataUrl}", scope="read write delete admin"${tokenGiven ? ', error="invalid_token", error_description="the access token is not valid for this resource"' : ""}`
      : API_KEY_CHALLENGE;
  const serve = ({ request, principal, ip, set }: { request: Request; principal: import("../../core/principal.ts").Principal | null; ip: string; set: { headers: Record<string, string | number> } }) => {
    if (!mcp.originOk(request)) throw new ForbiddenError("This Origin may not call the MCP endpoint; add it to the server's MCP CORS origins");
    // An MCP access token was resolved with the request (src/http/authenticate.ts); where no
    // authorization server runs (`quire mcp-server`) it is not accepted.
    const oauthToken = principal?.kind === "api_key" && principal.workspaceIds !== undefined;
    const caller = oauthToken && !opts.oauth ? null : principal;
    if (caller === null || caller.kind !== "api_key") {
      set.headers["www-authenticate"] = challenge(caller === null && bearer(request.headers.get("authorization")) !== null);
      Object.assign(set.headers, mcp.cors(request));
      throw new UnauthorizedError(
        caller === null
          ? opts.oauth
            ? "A valid access token (OAuth, see the resource metadata) or API key is required"
            : "A valid API key is required (Authorization: Bearer quire_live_…)"
          : "The MCP endpoint takes an API key or an MCP access token, not a web session token",
      );
    }
    const scopes = caller.scopes;
    return mcp.handle(request, caller, ip, ({ needed, tool }) => {
      set.headers["www-authenticate"] = `Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${resourceMetadataUrl}"`;
      Object.assign(set.headers, mcp.cors(request));
      throw new ForbiddenError(`insufficient_scope: this authorization's scopes (${scopes.join(", ")}) do not allow ${tool}, which needs the ${needed} scope`);
    });
  };
  return new Elysia()
    .use(httpCore(services))
    // What the API key screen needs for its ready-to-paste client configurations.
    .get("/api/v1/mcp/client-config", ({ principal }) => {
      requireSession(principal);
      return mcpClientConfig(services.config.baseUrl);
    })
    .options("/mcp", ({ request }) => {
      if (!mcp.originOk(request)) throw new ForbiddenError("This Origin may not call the MCP endpoint; add it to the server's MCP CORS origins");
      return mcp.preflight(request);
    })
    .post("/mcp", serve, { parse: "none" })
    .get("/mcp", serve)
    .delete("/mcp", serve);
}

/**
 * How an MCP client starts `quire mcp` on this machine: the absolute path of the running
 * executable (a source checkout runs as `bun /path/to/src/cli.ts`), and the HTTP endpoint.
 */
function mcpClientConfig(baseUrl: string): McpClientConfigOutput {
  const runtime = basename(process.execPath).replace(/\.exe$/, "");
  const fromSource = runtime === "bun" && !Bun.main.startsWith("/$bunfs/");
  return { command: process.execPath, args: fromSource ? [Bun.main] : [], http_url: `${baseUrl.replace(/\/+$/, "")}/mcp` };
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const mcpDocs: RouteDocs = {
  "GET /api/v1/mcp/client-config": { summary: "Ready-to-paste MCP client configuration (stdio command and HTTP endpoint) for this server", tag: "ai", response: mcpClientConfigOutput },
};
