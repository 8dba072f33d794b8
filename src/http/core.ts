import { Elysia } from "elysia";
import { ulid } from "../core/ids.ts";
import { nowMs } from "../core/clock.ts";
import { toErrorResponse } from "./error-response.ts";
import { clientIp } from "./client-ip.ts";
import { credentialResolver } from "./authenticate.ts";
import { MAX_BODY_BYTES, SERVER_BODY_LIMIT, bufferChunkedBody, tooLarge } from "../core/net/body-limit.ts";
import { methodClass, scopesAllow, type Principal } from "../core/principal.ts";
import { ForbiddenError, ValidationError } from "../core/errors.ts";
import type { Services } from "../services.ts";
import { RATE_LIMIT_LIMIT, RATE_LIMIT_REMAINING, RATE_LIMIT_RESET, REQUEST_ID } from "./per-request-headers.ts";

export { MAX_BODY_BYTES, SERVER_BODY_LIMIT };

/** API responses are data, never documents: nothing may load, frame or submit from them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export interface RequestState {
  requestId: string;
  path: string;
  ip: string;
  principal: Principal | null;
  startedAt: number;
  /** Gives back the places this request took under success-only limits (run when it ends in an error). */
  refunds?: Array<() => void>;
}

/**
 * What onRequest learned about a request, for the hooks that run later. Kept outside the plugin
 * because every route plugin builds its own (deduplicated) copy of it; a Request is one request.
 */
const states = new WeakMap<Request, RequestState>();

/** The caller and client address httpCore found for a request (routes that answer before routing use it). */
export function requestState(request: Request): { principal: Principal | null; ip: string; requestId: string } | null {
  const state = states.get(request);
  return state ? { principal: state.principal, ip: state.ip, requestId: state.requestId } : null;
}

/** The path as the router sees it: raw (no decoding), without the query string. */
export function routerPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start + 1);
  return query === -1 ? url.substring(start) : url.substring(start, query);
}

/** The name of the first query parameter (name or value) that does not percent-decode as UTF-8, or null. */
function undecodableQueryField(url: string): string | null {
  const q = url.indexOf("?");
  if (q === -1) return null;
  const end = url.indexOf("#", q);
  for (const pair of url.slice(q + 1, end === -1 ? undefined : end).split("&")) {
    const eq = pair.indexOf("=");
    const name = eq === -1 ? pair : pair.slice(0, eq);
    let decodedName: string;
    try {
      decodedName = decodeURIComponent(name.replace(/\+/g, " "));
    } catch {
      return "query";
    }
    try {
      if (eq !== -1) decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, " "));
    } catch {
      return /^[\w.-]{1,64}$/.test(decodedName) ? decodedName : "query";
    }
  }
  return null;
}

/**
 * The browser's refresh is counted per account, not per address: ten people behind one office
 * address reloading the app would otherwise share 20 refreshes a minute. Only a cookie naming a
 * stored refresh token counts that way (one indexed lookup); anything else stays per IP, so
 * made-up cookies cannot open buckets of their own (docs/decisions/rate-limits.md).
 */
function refreshAccount(services: Services, request: Request, path: string): string | null {
  if (request.method !== "POST" || path !== "/api/auth/refresh") return null;
  const cookie = request.headers.get("cookie");
  if (!cookie) return null;
  const match = /(?:^|;\s*)quire_refresh=([^;]+)/.exec(cookie);
  if (!match) return null;
  try {
    return services.sessions.accountOfRefreshToken(decodeURIComponent(match[1]!));
  } catch {
    return null; // not even a well-formed cookie value
  }
}

/**
 * Paths that carry a secret in a segment are logged with the segment replaced, so a log file
 * never holds a usable share-link token or key.
 */
function loggedPath(path: string): string {
  // Most paths hold none: substring checks spare them the regular expressions.
  if (path.startsWith("/api/v1/share-links/") || path.startsWith("/invite/") || path.startsWith("/shared/") || path.startsWith("/join/")) {
    path = path.replace(/^(\/api\/v1\/share-links\/|\/invite\/|\/shared\/|\/join\/)[^/]+/, "$1[redacted]");
  }
  return path.includes("quire_live_") ? path.replace(/quire_live_[0-9A-Za-z]+/g, "[redacted]") : path;
}

/**
 * Shared HTTP plumbing applied to every route: request ids, client address, the caller's
 * credential, API-key scopes, rate limits, security headers, the body limit, the one error mapper
 * and the request log.
 *
 * Identification and rate limiting run in onRequest, before routing and body parsing: a limit
 * holds for every path under a limited prefix whether or not a route exists there yet, and an
 * over-limit caller costs no parsing.
 */
export function httpCore(services: Services) {
  const { config, log, rateLimiter } = services;
  const credentials = credentialResolver(services);
  return new Elysia({ name: "quire-http-core" })
    .onRequest(async (ctx) => {
      const { request, set, server } = ctx;
      const requestId = ulid();
      const path = routerPath(request.url);
      const state: RequestState = { requestId, path, ip: "unknown", principal: null, startedAt: performance.now() };
      states.set(request, state);
      set.headers[REQUEST_ID] = requestId;
      set.headers["x-content-type-options"] = "nosniff";
      // Routes that render documents (published sites, the app) set their own policy.
      if (path.startsWith("/api/")) set.headers["content-security-policy"] = API_CSP;

      const length = request.headers.get("content-length");
      if (length !== null && !(Number(length) <= MAX_BODY_BYTES)) {
        set.headers["connection"] = "close";
        throw tooLarge();
      }
      state.ip = clientIp(request, server?.requestIP(request)?.address, config.trustProxy);
      const now = nowMs();
      const authorization = request.headers.get("authorization");
      state.principal = await credentials.resolve(authorization, now, path);
      const account = state.principal ? null : refreshAccount(services, request, path);
      const limit = rateLimiter.hit(request.method, path, state.principal, state.ip, now, authorization !== null, account, (state.refunds = []));
      if (limit) {
        set.headers[RATE_LIMIT_LIMIT] = String(limit.limit);
        set.headers[RATE_LIMIT_REMAINING] = String(limit.remaining);
        set.headers[RATE_LIMIT_RESET] = String(limit.resetAt);
      }
      // A query value whose percent-encoding is not UTF-8 (`%E9`, or a surrogate's bytes) is
      // refused naming it, instead of reaching a handler mangled or silently dropped.
      const badQuery = undecodableQueryField(request.url);
      if (badQuery !== null) throw new ValidationError(`${badQuery}: malformed percent-encoding (not UTF-8)`, badQuery);
      // Last, so a refused caller costs no reading. The framework's parsers (and any route that
      // reads the raw body) read ctx.request later; from here on that is the bounded copy.
      const bounded = await bufferChunkedBody(request).catch((error: unknown) => {
        // The rest of a refused stream is never read: the connection cannot be reused.
        set.headers["connection"] = "close";
        throw error;
      });
      if (bounded) {
        states.set(bounded, state);
        (ctx as { request: Request }).request = bounded;
      }
    })
    .derive({ as: "global" }, ({ request }) => {
      const state = states.get(request);
      return {
        requestId: state?.requestId ?? ulid(),
        ip: state?.ip ?? "unknown",
        principal: state?.principal ?? null,
      };
    })
    .onBeforeHandle({ as: "global" }, ({ request, principal }) => {
      // Every MCP exchange is a POST; the MCP server checks each tool against the key's scopes itself.
      if (principal?.kind === "api_key" && !scopesAllow(principal.scopes, methodClass(request.method)) && routerPath(request.url) !== "/mcp") {
        throw new ForbiddenError("This API key's scopes do not allow this method");
      }
    })
    .onError({ as: "global" }, ({ error, code, set, request }) => {
      const state = states.get(request);
      const requestId = state?.requestId ?? String(set.headers[REQUEST_ID] ?? ulid());
      const { status, body, headers } = toErrorResponse(error, code, requestId, log, services.storage);
      // An answer that is an error uses no success-only allowance (a day's export): the place is
      // given back before the headers go out, so they show it.
      if (state && giveBack(state)) {
        const remaining = Number(set.headers[RATE_LIMIT_REMAINING]);
        const limit = Number(set.headers[RATE_LIMIT_LIMIT]);
        if (Number.isFinite(remaining) && Number.isFinite(limit)) set.headers[RATE_LIMIT_REMAINING] = String(Math.min(limit, remaining + 1));
      }
      set.status = status;
      Object.assign(set.headers, headers);
      set.headers["content-type"] = "application/json";
      set.headers[REQUEST_ID] = requestId;
      set.headers["x-content-type-options"] = "nosniff";
      set.headers["content-security-policy"] = API_CSP;
      return new Response(JSON.stringify(body), { status, headers: set.headers as Record<string, string> });
    })
    .onAfterResponse({ as: "global" }, (ctx) => {
      const { request, set } = ctx;
      const state = states.get(request);
      // A non-2xx answer a route returned without throwing gives its places back too.
      const status = typeof set.status === "number" ? set.status : Number(set.status);
      if (state && !(status >= 200 && status < 300)) giveBack(state);
      finishRequest(services, request.method, state?.path ?? routerPath(request.url), set.status, (ctx as { route?: string }).route, state, set.headers[REQUEST_ID]);
    });
}

/** Runs (once) the request's refunds of success-only limits; true when there were any. */
function giveBack(state: RequestState): boolean {
  if (!state.refunds || state.refunds.length === 0) return false;
  for (const refund of state.refunds.splice(0)) refund();
  return true;
}

/**
 * For a response given before routing (a published site on its custom domain is answered in the
 * first hook, and the framework then runs no after-response hook): counts it and logs it as the
 * after-response hook would, under `route`.
 */
export function finishEarlyResponse(services: Services, request: Request, response: Response, route: string): Response {
  const state = states.get(request);
  finishRequest(services, request.method, state?.path ?? routerPath(request.url), response.status, route, state, response.headers.get(REQUEST_ID));
  return response;
}

/**
 * What every answered request leaves behind: its count and duration under the matched route's
 * template (never the raw path; requests no route matched share one label), and one log line.
 * Shared by the framework's after-response hook and the direct lane for published pages.
 */
export function finishRequest(
  services: Services,
  method: string,
  path: string,
  status: unknown,
  route: string | undefined,
  state: RequestState | undefined,
  fallbackRequestId?: unknown,
): void {
  const elapsedMs = state ? performance.now() - state.startedAt : undefined;
  services.metrics.observeHttp(route, method, status, elapsedMs === undefined ? 0 : elapsedMs / 1000);
  // The line's fields (and the redaction of the path) are built only when the line will be written.
  if (!services.log.enabled("info")) return;
  // Only what identifies the request: never headers, bodies or query strings, which carry secrets.
  services.log.info("request", {
    request_id: state?.requestId ?? fallbackRequestId,
    method,
    path: loggedPath(path),
    status,
    ms: elapsedMs === undefined ? undefined : Math.round(elapsedMs * 100) / 100,
    ip: state?.ip,
    user_id: state?.principal?.userId,
    key_id: state?.principal?.kind === "api_key" ? state.principal.keyId : undefined,
  });
}
