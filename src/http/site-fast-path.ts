import type { Server } from "bun";
import type { Services } from "../app.ts";
import { ulid } from "../core/ids.ts";
import { nowMs } from "../core/clock.ts";
import { hostName } from "../publish/custom-domains.ts";
import { API_CSP, finishRequest, routerPath, type RequestState } from "./core.ts";
import { clientIp } from "./client-ip.ts";
import { toErrorResponse } from "./error-response.ts";
import { publishedPathAnswer } from "./routes/site.ts";

/** The route template the published site's requests are counted under (the framework's route is `/p/*`). */
const SITE_ROUTE = "/p/*";

/**
 * A direct lane for the most frequent request of a public instance: an anonymous reader's GET or
 * HEAD of `/p/{slug}/…` without a query. It is registered as the server's own route for `/p/*`,
 * so it skips the framework's per-request context, router and hook chain (most of the cost of a
 * cached page), and does what httpCore does for such a request with the same functions: request
 * id, client address, the rate limit, `nosniff`, the error shape, the metrics and the log line.
 * The site server decides everything else (visibility, members' cookie, ETag/304, the nonce and
 * the page's headers, analytics) exactly as on the framework's route.
 *
 * Anything else is handed to the framework unchanged: other methods, an Authorization header
 * (API keys and their scopes), a body, a query string (its percent-encoding is checked there),
 * and a Host that is a registered custom domain (its requests are all the site's, by host).
 */
export function siteFastPath(services: Services, framework: (request: Request) => Response | Promise<Response>) {
  const { config, log, rateLimiter, site } = services;
  const answer = publishedPathAnswer(services);
  return async (request: Request, server: Server<unknown>): Promise<Response> => {
    const method = request.method;
    const headers = request.headers;
    if (
      (method !== "GET" && method !== "HEAD") ||
      request.url.includes("?") ||
      headers.has("authorization") ||
      headers.has("content-length") ||
      headers.has("transfer-encoding")
    ) {
      return framework(request);
    }
    const host = hostName(headers.get("host"));
    if (host !== null && (site.workspaceForHost(host) !== null || site.isUnverifiedDomain(host))) return framework(request);

    const requestId = ulid();
    const path = routerPath(request.url);
    const state: RequestState = { requestId, path, ip: "unknown", principal: null, startedAt: performance.now() };
    const out: Record<string, string> = { "x-request-id": requestId, "x-content-type-options": "nosniff" };
    let route: string | undefined;
    let response: Response;
    try {
      state.ip = clientIp(request, server.requestIP(request)?.address, config.trustProxy);
      const limit = rateLimiter.hit(method, path, null, state.ip, nowMs(), false, null);
      if (limit) {
        out["x-ratelimit-limit"] = String(limit.limit);
        out["x-ratelimit-remaining"] = String(limit.remaining);
        out["x-ratelimit-reset"] = String(limit.resetAt);
      }
      route = SITE_ROUTE; // past the limit, as the framework would have matched its route
      const site = await answer(request, null, state.ip);
      for (const name in site.headers) out[name] = String(site.headers[name]);
      response = new Response(site.body as BodyInit | null, { status: site.status, headers: out });
    } catch (error) {
      const { status, body, headers: extra } = toErrorResponse(error, undefined, requestId, log);
      Object.assign(out, extra);
      out["content-type"] = "application/json";
      out["content-security-policy"] = API_CSP;
      response = new Response(JSON.stringify(body), { status, headers: out });
    }
    finishRequest(services, method, path, response.status, route, state);
    return response;
  };
}
