import type { McpClientConfigOutput } from "../../ai/schemas.ts";
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { ForbiddenError, UnauthorizedError } from "../../core/errors.ts";
import { requireSession } from "../guards.ts";
import { basename } from "node:path";
import { mcpHttp, type McpHttpOptions } from "../../mcp/http.ts";
import { mcpClientConfigOutput } from "../../ai/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** The challenge of a 401 at /mcp: a Bearer API key (no OAuth authorization server to discover). */
const MCP_CHALLENGE = 'Bearer realm="quire", error="invalid_token", error_description="an API key (quire_live_...) is required"';

/**
 * `POST /mcp` (and GET/DELETE for the 2025 era's session operations, which the stateless endpoint
 * answers 405): the MCP server over Streamable HTTP, for API keys. A browser's Origin must be the
 * server's own or on the list (403 otherwise); listed origins get CORS headers.
 */
export function mcpRoutes(services: Services, opts: McpHttpOptions) {
  const mcp = mcpHttp(services, opts);
  services.closers.push(() => mcp.close());
  const serve = ({ request, principal, ip, set }: { request: Request; principal: import("../../core/principal.ts").Principal | null; ip: string; set: { headers: Record<string, string | number> } }) => {
    if (!mcp.originOk(request)) throw new ForbiddenError("This Origin may not call the MCP endpoint; add it to the server's MCP CORS origins");
    if (principal === null || principal.kind !== "api_key") {
      set.headers["www-authenticate"] = MCP_CHALLENGE;
      Object.assign(set.headers, mcp.cors(request));
      throw new UnauthorizedError(principal === null ? "A valid API key is required (Authorization: Bearer quire_live_…)" : "The MCP endpoint takes an API key, not a session token");
    }
    return mcp.handle(request, principal, ip);
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
