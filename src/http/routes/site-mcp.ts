import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import type { Principal } from "../../core/principal.ts";
import type { SitePlace } from "../../publish/site-mcp/site-reader.ts";
import type { RouteDocs } from "../openapi.ts";
import { ForbiddenError, UnauthorizedError } from "../../core/errors.ts";
import { bearer } from "../authenticate.ts";
import { foreignToLocalInstance } from "../local-host.ts";

type Handler = ReturnType<typeof import("../../mcp/site-http-handler.ts").siteMcpHandler>;

/** The path of the site's MCP endpoint inside the site: `/p/{slug}/mcp`, or `/mcp` on a custom domain. */
export const SITE_MCP_TAIL = "/mcp";

/** One handler per instance, shared by the `/p/` route and the custom domains' hook (site.ts). */
const handlers = new WeakMap<Services, { get: () => Handler }>();

/**
 * The site MCP endpoint's answer to one request (docs/decisions/site-mcp.md): the SDK and the
 * site's reader are loaded by the first request, not with the routes (a server nobody asks over
 * MCP never holds them). Throws NOT_FOUND for a site this reader may not see.
 */
export function siteMcpAnswer(services: Services): (request: Request, slug: string, reader: Principal | null, place?: SitePlace) => Promise<Response> {
  let entry = handlers.get(services);
  if (!entry) {
    let handler: Handler | undefined;
    entry = { get: () => (handler ??= (require("../../mcp/site-http-handler.ts") as typeof import("../../mcp/site-http-handler.ts")).siteMcpHandler(services)) };
    handlers.set(services, entry);
    services.closers.push(() => handler?.close());
  }
  const { get } = entry;
  return (request, slug, reader, place) => get().handle(request, slug, reader, place);
}

/**
 * `POST /p/{slug}/mcp`: every published site is a read-only MCP server for its readers
 * (docs/decisions/site-mcp.md). No sign-in for a public site; a members-only site takes the
 * members' site cookie (or a credential of a member). It is counted under the site's own per-IP
 * limit (the "published" rule matches every `/p/` path). An unknown, unpublished or closed site is
 * 404 before any MCP exchange. A verified custom domain's `POST /mcp` is answered by the same
 * handler from the custom domains' hook (routes/site.ts).
 */
export function siteMcpRoutes(services: Services) {
  const answer = siteMcpAnswer(services);
  return new Elysia()
    .use(httpCore(services))
    .post(
      `/p/:slug${SITE_MCP_TAIL}`,
      async ({ request, params, principal, set }) => {
        if (foreignToLocalInstance(request, services.config.baseUrl)) throw new ForbiddenError("This server answers only requests for this machine's own address");
        let reader: Principal | null = principal ?? services.site.cookies.principal(request.headers.get("cookie"), Date.now());
        if (reader === null && services.site.membersOnlySite(params.slug) !== null) {
          // A members-only site is an OAuth protected resource of its own (docs/decisions/site-mcp.md):
          // a token for exactly this endpoint, or the challenge that says where to get one.
          const base = services.config.baseUrl.replace(/\/+$/, "");
          const token = bearer(request.headers.get("authorization"));
          reader = token === null ? null : await services.oauth.authenticate(token, Date.now(), `${base}/p/${params.slug}/mcp`);
          if (reader === null) {
            set.headers["www-authenticate"] = `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/p/${params.slug}/mcp", scope="read"${token === null ? "" : ', error="invalid_token"'}`;
            throw new UnauthorizedError("This site is for its members: sign in through the MCP authorization (see the resource metadata), or use an API key of a member");
          }
        }
        return answer(request, params.slug, reader);
      },
      { parse: "none" },
    );
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const siteMcpDocs: RouteDocs = {
  "POST /p/:slug/mcp": { summary: "The published site's read-only MCP server (Streamable HTTP; site_ tools)", tag: "sites", auth: "public" },
};
