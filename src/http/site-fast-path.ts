import type { Server } from "bun";
import type { Services } from "../services.ts";
import { ulid } from "../core/ids.ts";
import { nowMs } from "../core/clock.ts";
import { hostName } from "../publish/custom-domains.ts";
import type { SiteAnswer } from "../publish/site-server.ts";
import { storedByCaches } from "../publish/site/site-answer.ts";
import { API_CSP, finishRequest, routerPath, type RequestState } from "./core.ts";
import { clientIp } from "./client-ip.ts";
import { toErrorResponse } from "./error-response.ts";
import { publishedPathAnswer } from "./routes/site.ts";
import { RATE_LIMIT_LIMIT, RATE_LIMIT_REMAINING, RATE_LIMIT_RESET, REQUEST_ID } from "./per-request-headers.ts";

/** The route template the published site's requests are counted under (the framework's route is `/p/*`). */
const SITE_ROUTE = "/p/*";

/** A path of the class the direct lane's rate limits are selected for (any `/p/{slug}/…`). */
const SITE_SAMPLE = "/p/site/page";
/** Distinct Host values remembered (a client may send any; beyond this the memory starts over). */
const MAX_REMEMBERED_HOSTS = 64;

type Limit = { limit: number; remaining: number; resetAt: number } | null;

/**
 * A direct lane for the most frequent request of a public instance: an anonymous reader's GET or
 * HEAD of `/p/{slug}/…` without a query. It is registered as the server's own route for `/p/*`,
 * so it skips the framework's per-request context, router and hook chain (most of the cost of a
 * cached page), and does what httpCore does for such a request with the same functions: request
 * id, client address, the rate limit, `nosniff`, the error shape, the metrics and the log line.
 * The site server decides everything else (visibility, members' cookie, ETag/304, the page's
 * headers and policy, analytics) exactly as on the framework's route.
 *
 * Anything else is handed to the framework unchanged: other methods, an Authorization header
 * (API keys and their scopes), a body, a query string (its percent-encoding is checked there),
 * and a Host that is a registered custom domain (its requests are all the site's, by host).
 *
 * A cached page is answered synchronously (no promise, no turn of the event loop), as a clone of
 * the one response its cached version made (bytes and headers shared by every reader). A public
 * page goes out as it is; anything a shared cache may not store also gets this response's own
 * headers: request id and rate-limit state.
 */
export function siteFastPath(services: Services, framework: (request: Request) => Response | Promise<Response>) {
  const { config, log, rateLimiter, site } = services;
  const answer = publishedPathAnswer(services);
  // Every read of `/p/{slug}/…` without credentials meets the same rules (the site's 600 a minute
  // per address, and not the anonymous floor): selected once here instead of on each request.
  const readLimits = { GET: rateLimiter.anonymousClass("GET", SITE_SAMPLE), HEAD: rateLimiter.anonymousClass("HEAD", SITE_SAMPLE) };
  // The Host header's normalized name, by its raw value: the same few values arrive on every
  // request, and normalizing costs three regular expressions. Which domains are verified is asked
  // of the site each time (a domain may be verified at any moment).
  const hosts = new Map<string, string | null>();
  const hostOf = (header: string | null): string | null => {
    if (header === null) return null;
    let host = hosts.get(header);
    if (host === undefined) {
      host = hostName(header);
      if (hosts.size >= MAX_REMEMBERED_HOSTS) hosts.clear();
      hosts.set(header, host);
    }
    return host;
  };

  const failed = (error: unknown, requestId: string, limit: Limit): Response => {
    const { status, body, headers: extra } = toErrorResponse(error, undefined, requestId, log, services.storage);
    const out = new Headers();
    common(out, requestId, limit);
    for (const name in extra) out.set(name, extra[name]!); // a 429's own rate-limit state wins
    out.set("x-content-type-options", "nosniff");
    out.set("content-type", "application/json");
    out.set("content-security-policy", API_CSP);
    return new Response(JSON.stringify(body), { status, headers: out });
  };

  return (request: Request, server: Server<unknown>): Response | Promise<Response> => {
    const method = request.method;
    const headers = request.headers;
    const url = request.url;
    if (
      (method !== "GET" && method !== "HEAD") ||
      url.includes("?") ||
      headers.has("authorization") ||
      headers.has("content-length") ||
      headers.has("transfer-encoding")
    ) {
      return framework(request);
    }
    // The Host header names a custom domain only where one is registered (asked each time: one
    // may be added at any moment); an instance without any never reads it.
    if (site.hasCustomDomains()) {
      const host = hostOf(headers.get("host"));
      if (host !== null && (site.workspaceForHost(host) !== null || site.isUnverifiedDomain(host))) return framework(request);
    }

    // One clock reading for the rate limit and the remembered page's checks. The request id is
    // made when something will carry it (see idOf).
    const now = nowMs();
    const path = routerPath(url);
    const state: RequestState = { requestId: "", path, ip: "unknown", principal: null, startedAt: performance.now() };
    let route: string | undefined;
    let limit: Limit = null;
    let answered: SiteAnswer | Promise<SiteAnswer>;
    try {
      state.ip = clientIp(request, () => server.requestIP(request)?.address, config.trustProxy);
      limit = path.startsWith("/p/") ? readLimits[method](state.ip, now) : rateLimiter.hit(method, path, null, state.ip, now, false, null);
      route = SITE_ROUTE; // past the limit, as the framework would have matched its route
      answered = answer(request, null, state.ip, path, true);
    } catch (error) {
      return finished(failed(error, idOf(state), limit), method, route, state);
    }
    // A cached page is answered here, without the closures a later answer needs.
    if (!(answered instanceof Promise)) return reply(answered, method, route, state, limit);
    return answered.then(
      (a) => reply(a, method, route, state, limit),
      (error: unknown) => finished(failed(error, idOf(state), limit), method, route, state),
    );
  };

  function finished(response: Response, method: string, route: string | undefined, state: RequestState): Response {
    // The log line names its request, whether or not the response carried the id.
    if (state.requestId === "" && log.enabled("info")) idOf(state);
    finishRequest(services, method, state.path, response.status, route, state);
    return response;
  }

  function reply(a: SiteAnswer, method: string, route: string | undefined, state: RequestState, limit: Limit): Response {
    let response: Response;
    try {
      response = respond(a, state, limit);
    } catch (error) {
      response = failed(error, idOf(state), limit);
    }
    return finished(response, method, route, state);
  }
}

/**
 * The request's id, made on first use: every response carries it except what a shared cache may
 * store, and every log line (docs/decisions/site-caching.md).
 */
function idOf(state: RequestState): string {
  if (state.requestId === "") state.requestId = ulid();
  return state.requestId;
}

function respond(site: SiteAnswer, state: RequestState, limit: Limit): Response {
  // A cached page's 200 is a clone of the response its version made once (bytes and shared
  // headers, which hold nosniff); anything else takes the shared headers in one native copy.
  const response = site.response
    ? (site.response.clone() as Response)
    : new Response(site.body as ConstructorParameters<typeof Response>[0], { status: site.status, headers: site.shared ?? NOSNIFF });
  // What a shared cache may store is the same for every reader: nothing of this request's own
  // (request id, rate-limit state) goes with it. Anything else gets them, added in place. (The
  // response's headers are not even asked for unless something is added: asking makes an object.)
  if (!storedByCaches(site)) common(response.headers, idOf(state), limit);
  for (const name in site.headers) response.headers.set(name, site.headers[name]!);
  return response;
}

const NOSNIFF = { "x-content-type-options": "nosniff" };

/** What httpCore adds to every response: the request id and the rate-limit state (and nosniff, see callers). */
function common(out: Headers, requestId: string, limit: Limit): void {
  // Appended: no answer carries these names itself (cheaper than set, which looks for one first).
  out.append(REQUEST_ID, requestId);
  if (limit) {
    out.append(RATE_LIMIT_LIMIT, countText(limit.limit));
    out.append(RATE_LIMIT_REMAINING, countText(limit.remaining));
    out.append(RATE_LIMIT_RESET, resetText(limit.resetAt));
  }
}

/** The decimal text of the counts a limit reports (up to the site's 600 a minute), made once. */
const COUNTS = Array.from({ length: 1024 }, (_, i) => String(i));
const countText = (n: number): string => COUNTS[n] ?? String(n);
/** The last reset time's text: the windows opened within the same second share it. */
let lastReset = -1;
let lastResetText = "";
function resetText(at: number): string {
  if (at !== lastReset) {
    lastReset = at;
    lastResetText = String(at);
  }
  return lastResetText;
}
