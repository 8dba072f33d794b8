import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { finishEarlyResponse, httpCore, requestState, routerPath } from "../core.ts";
import { requireSession } from "../guards.ts";
import { hostName } from "../../publish/custom-domains.ts";
import type { SiteAnswer, SiteRequest } from "../../publish/site-server.ts";
import { storedByCaches } from "../../publish/site/site-answer.ts";
import { NOT_FOUND_HTML } from "../../publish/site/layout.ts";
import type { Principal } from "../../core/principal.ts";
import type { RouteDocs } from "../openapi.ts";
import { toErrorResponse } from "../error-response.ts";
import { SITE_MCP_TAIL, siteMcpAnswer } from "./site-mcp.ts";
import { PER_REQUEST_HEADERS } from "../per-request-headers.ts";

const CONSENT_PATH = "/api/analytics/consent";
/** The route template a custom domain's requests are counted under (the `/p/` site's is `/p/*`). */
const CUSTOM_DOMAIN_ROUTE = "/* (custom domain)";

/**
 * Published sites (docs/architecture.md §9): `/p/{slug}/…` on the instance's own address, and every path of
 * a verified custom domain. A request whose Host is a registered but unverified domain is served
 * nothing (404 on every path). `POST /api/v1/site-session` gives a signed-in member's browser the
 * cookie that opens members-only sites; `DELETE` removes it (sign-out).
 */
const INSTANCE_ROBOTS = "# Published sites live under /p/; the app and its API are not for crawlers.\nUser-agent: *\nAllow: /p/\nDisallow: /\n";

/** The query of a request without one (most site requests); nothing writes to a request's query. */
const NO_QUERY = new URLSearchParams();

function siteRequest(req: Request, prefix: string, tail: string, origin: string, principal: Principal | null, ip: string | undefined): SiteRequest {
  const url = req.url;
  const q = url.indexOf("?");
  return {
    method: req.method,
    tail,
    query: q === -1 ? NO_QUERY : new URLSearchParams(url.slice(q + 1)),
    headers: req.headers,
    principal,
    prefix,
    origin,
    fullPath: routerPath(url),
    ip,
  };
}

/**
 * The answer to a `/p/{slug}/…` request on the instance's own address, for the route below and
 * for the server's direct lane for published pages (http/site-fast-path.ts): one implementation.
 */
export function publishedPathAnswer(services: Services) {
  const { site, siteServer, config } = services;
  /**
   * `path`: the request's router path, when the caller has it already (building the URL again
   * costs); `noAuthorization`: the caller has seen that the request carries no Authorization header.
   */
  return (req: Request, principal: Principal | null, ip: string | undefined, path = routerPath(req.url), noAuthorization = false): SiteAnswer | Promise<SiteAnswer> => {
    // A page answered before to the same plain request, from the same workspace row and model.
    if (principal === null) {
      const remembered = siteServer.rememberedPage(path, req.method, req.headers, ip, noAuthorization);
      if (remembered) return remembered;
    }
    // /p/{slug}[/tail]; the slug is one raw segment.
    const m = /^\/p\/([^/]+)(\/.*)?$/.exec(path);
    if (!m) return { status: 404, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }, body: NOT_FOUND_HTML };
    let slug: string;
    try {
      slug = decodeURIComponent(m[1]!);
    } catch {
      slug = "";
    }
    if (m[2] === undefined) {
      // /p/{slug} → /p/{slug}/ (the site's root), without saying whether the site exists.
      return { status: 301, headers: { location: `${path}/`, "cache-control": "public, max-age=300" }, body: null };
    }
    const ws = /^[a-z0-9-]{1,64}$/.test(slug) ? site.workspaceForSlug(slug) : null;
    const prefix = `/p/${encodeURIComponent(slug)}`;
    return siteServer.handle(ws, siteRequest(req, prefix, m[2], config.baseUrl, principal, ip));
  };
}

export function siteRoutes(services: Services) {
  const { site, siteServer, config } = services;

  const toResponse = (answer: SiteAnswer, set: { status?: number | string; headers: Record<string, string | number> }) => {
    answer.shared?.forEach((value, name) => {
      set.headers[name] = value;
    });
    Object.assign(set.headers, answer.headers);
    // What a shared cache may store carries nothing of this request's own: the same answer as the
    // direct lane's (docs/decisions/site-caching.md).
    if (storedByCaches(answer)) for (const name of PER_REQUEST_HEADERS) delete set.headers[name];
    set.status = answer.status;
    return new Response(answer.body as ConstructorParameters<typeof Response>[0], { status: answer.status, headers: set.headers as Record<string, string> });
  };

  const request = (req: Request, prefix: string, tail: string, origin: string): SiteRequest =>
    siteRequest(req, prefix, tail, origin, requestState(req)?.principal ?? null, requestState(req)?.ip);
  const answerPath = publishedPathAnswer(services);
  const servePath = async (req: Request, set: Parameters<typeof toResponse>[1]) =>
    toResponse(await answerPath(req, requestState(req)?.principal ?? null, requestState(req)?.ip), set);

  // The site's MCP endpoint on its custom domain (`POST /mcp`; docs/decisions/site-mcp.md): the
  // same handler as `/p/{slug}/mcp`, reading as the domain's member cookie or the request's
  // credential, answering with the domain's URLs. Counted under the per-IP floor, as the
  // domain's pages are. Errors take the API's error shape, as on the `/p/` route.
  const siteMcp = siteMcpAnswer(services);
  const answerMcp = (req: Request, ws: { slug: string }, host: string, set: Parameters<typeof toResponse>[1]): Promise<Response> => {
    const state = requestState(req);
    const reader = state?.principal ?? site.cookies.principal(req.headers.get("cookie"), Date.now(), host);
    const withHeaders = (status: number, body: ConstructorParameters<typeof Response>[0], headers: Headers) => {
      for (const [name, value] of Object.entries(set.headers)) if (!headers.has(name)) headers.set(name, String(value));
      return finishEarlyResponse(services, req, new Response(body, { status, headers }), CUSTOM_DOMAIN_ROUTE);
    };
    return siteMcp(req, ws.slug, reader, { prefix: "", origin: `https://${host}` }).then(
      (res) => withHeaders(res.status, res.body, new Headers(res.headers)),
      (error: unknown) => {
        const { status, body, headers } = toErrorResponse(error, undefined, state?.requestId ?? "", services.log);
        return withHeaders(status, JSON.stringify(body), new Headers({ ...headers, "content-type": "application/json" }));
      },
    );
  };


  return new Elysia({ name: "quire-site" })
    .use(httpCore(services))
    // Not `async`: this runs for every request of the instance, and the framework awaits only
    // what a hook returns; the site of a custom domain answers with a promise.
    .onRequest(({ request: req, set }) => {
      const host = hostName(req.headers.get("host"));
      if (host === null) return;
      const ws = site.workspaceForHost(host);
      // The site's consent prompt answers on its own origin, so the cookie is the domain's:
      // this one API route is reachable on a custom domain (it takes only that site's answers).
      if (ws && req.method === "POST" && routerPath(req.url) === CONSENT_PATH) return;
      if (ws && req.method === "POST" && routerPath(req.url) === SITE_MCP_TAIL) return answerMcp(req, ws, host, set as Parameters<typeof toResponse>[1]);
      // Answered here, before routing: the framework's after-response hook does not run for
      // these, so their metrics and log line are written here.
      if (ws) {
        return Promise.resolve(siteServer.handle(ws, request(req, "", routerPath(req.url), `https://${host}`))).then((answer) =>
          finishEarlyResponse(services, req, toResponse(answer, set as Parameters<typeof toResponse>[1]), CUSTOM_DOMAIN_ROUTE),
        );
      }
      if (site.isUnverifiedDomain(host)) {
        const notFound = toResponse({ status: 404, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }, body: NOT_FOUND_HTML }, set as Parameters<typeof toResponse>[1]);
        return finishEarlyResponse(services, req, notFound, CUSTOM_DOMAIN_ROUTE);
      }
    })
    // The instance's own robots.txt (a crawler reads it before any /p/ page): published sites
    // are open to crawlers (each site's own robots.txt and sitemap say the rest), the app is not.
    // On a custom domain the hook above answers with the site's.
    .get("/robots.txt", ({ set }) => {
      set.headers["content-type"] = "text/plain; charset=utf-8";
      set.headers["cache-control"] = "public, max-age=3600";
      return INSTANCE_ROBOTS;
    })
    .get("/p/*", ({ request: req, set }) => servePath(req, set as Parameters<typeof toResponse>[1]))
    .head("/p/*", ({ request: req, set }) => servePath(req, set as Parameters<typeof toResponse>[1]))
    .post("/api/v1/site-session", ({ principal, set }) => {
      const session = requireSession(principal);
      set.headers["set-cookie"] = site.cookies.issue(session.sessionId, Date.now());
      set.headers["cache-control"] = "no-store";
      set.status = 204;
      return null;
    })
    .delete("/api/v1/site-session", ({ set }) => {
      set.headers["set-cookie"] = site.cookies.clear();
      set.status = 204;
      return null;
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const siteDocs: RouteDocs = {
  "POST /api/v1/site-session": { summary: "Give the browser the members' site cookie (signed-in session)", tag: "sites", status: 204 },
  "DELETE /api/v1/site-session": { summary: "Remove the members' site cookie", tag: "sites", auth: "public", status: 204 },
};
