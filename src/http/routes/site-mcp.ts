import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { SiteReader } from "../../publish/site-mcp/site-reader.ts";
import type { Principal } from "../../core/principal.ts";
import type { RouteDocs } from "../openapi.ts";

type Handler = ReturnType<typeof import("../../mcp/site-http-handler.ts").siteMcpHandler>;

/**
 * `POST /p/{slug}/mcp`: every published site is a read-only MCP server for its readers
 * (docs/decisions/site-mcp.md). No sign-in for a public site; a members-only site takes the
 * members' site cookie (or a credential of a member). It is counted under the site's own per-IP
 * limit (the "published" rule matches every `/p/` path). An unknown, unpublished or closed site is
 * 404 before any MCP exchange. The SDK is loaded by the first request, not with the routes.
 */
export function siteMcpRoutes(services: Services) {
  const reader = new SiteReader({ site: services.site, search: services.search, baseUrl: services.config.baseUrl });
  let handler: Handler | undefined;
  const handlerOf = (): Handler => (handler ??= (require("../../mcp/site-http-handler.ts") as typeof import("../../mcp/site-http-handler.ts")).siteMcpHandler(services));
  services.closers.push(() => handler?.close());
  return new Elysia()
    .use(httpCore(services))
    .post(
      "/p/:slug/mcp",
      async ({ request, params, principal }) => {
        const reader_: Principal | null = principal ?? services.site.cookies.principal(request.headers.get("cookie"), Date.now());
        reader.open(params.slug, reader_); // 404 (NOT_FOUND) for a site this reader cannot see
        return handlerOf().fetch(request, { authInfo: { token: "", clientId: "site-reader", scopes: ["read"], extra: { slug: params.slug, principal: reader_ } } });
      },
      { parse: "none" },
    );
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const siteMcpDocs: RouteDocs = {
  "POST /p/{slug}/mcp": { summary: "The published site's read-only MCP server (Streamable HTTP; site_ tools)", tag: "sites", auth: "public" },
};
