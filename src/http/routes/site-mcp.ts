import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import type { Principal } from "../../core/principal.ts";
import type { RouteDocs } from "../openapi.ts";

type Handler = ReturnType<typeof import("../../mcp/site-http-handler.ts").siteMcpHandler>;

/**
 * `POST /p/{slug}/mcp`: every published site is a read-only MCP server for its readers
 * (docs/decisions/site-mcp.md). No sign-in for a public site; a members-only site takes the
 * members' site cookie (or a credential of a member). It is counted under the site's own per-IP
 * limit (the "published" rule matches every `/p/` path). An unknown, unpublished or closed site is
 * 404 before any MCP exchange. The SDK and the site's reader are loaded by the first request, not
 * with the routes (a server nobody asks over MCP never holds them).
 */
export function siteMcpRoutes(services: Services) {
  let handler: Handler | undefined;
  const handlerOf = (): Handler => (handler ??= (require("../../mcp/site-http-handler.ts") as typeof import("../../mcp/site-http-handler.ts")).siteMcpHandler(services));
  services.closers.push(() => handler?.close());
  return new Elysia()
    .use(httpCore(services))
    .post(
      "/p/:slug/mcp",
      async ({ request, params, principal }) => {
        const reader: Principal | null = principal ?? services.site.cookies.principal(request.headers.get("cookie"), Date.now());
        return handlerOf().handle(request, params.slug, reader);
      },
      { parse: "none" },
    );
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const siteMcpDocs: RouteDocs = {
  "POST /p/:slug/mcp": { summary: "The published site's read-only MCP server (Streamable HTTP; site_ tools)", tag: "sites", auth: "public" },
};
