import { Elysia } from "elysia";
import { ulid } from "../core/ids.ts";
import { nowMs } from "../core/clock.ts";
import { errorBody, toErrorResponse } from "./error-response.ts";
import { clientIp } from "./client-ip.ts";
import { methodClass, scopesAllow, type Principal } from "../access/principal.ts";
import { ForbiddenError } from "../core/errors.ts";
import type { Services } from "../app.ts";

/** The global request body limit, which also bounds uploads. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Shared HTTP plumbing applied to every route: request ids, client address, the caller's
 * credential, rate limits, security headers, the body limit and the one error mapper.
 */
export function httpCore(services: Services) {
  const { config, log, rateLimiter } = services;
  return new Elysia({ name: "quire-http-core" })
    .onRequest(({ request, set }) => {
      const requestId = ulid();
      set.headers["x-request-id"] = requestId;
      set.headers["x-content-type-options"] = "nosniff";
      const length = Number(request.headers.get("content-length") ?? "0");
      if (length > MAX_BODY_BYTES) {
        return new Response(
          JSON.stringify(errorBody("PAYLOAD_TOO_LARGE", "The request body exceeds the 10 MB limit", requestId)),
          {
            status: 413,
            headers: {
              "content-type": "application/json",
              "x-request-id": requestId,
              "x-content-type-options": "nosniff",
              connection: "close",
            },
          },
        );
      }
    })
    .derive({ as: "global" }, async ({ request, server, set }) => {
      const requestId = String(set.headers["x-request-id"] ?? ulid());
      const ip = clientIp(request, server?.requestIP(request)?.address, config.trustProxy);
      const principal = await authenticate(services, request.headers.get("authorization"));
      return { requestId, ip, principal, startedAt: performance.now() };
    })
    .onBeforeHandle({ as: "global" }, ({ request, path, principal, ip, set }) => {
      if (principal?.kind === "api_key" && !scopesAllow(principal.scopes, methodClass(request.method))) {
        throw new ForbiddenError("This API key's scopes do not allow this method");
      }
      const state = rateLimiter.hit(request.method, path, principal, ip, nowMs());
      if (state) {
        set.headers["x-ratelimit-limit"] = String(state.limit);
        set.headers["x-ratelimit-remaining"] = String(state.remaining);
        set.headers["x-ratelimit-reset"] = String(state.resetAt);
      }
    })
    .onAfterHandle({ as: "global" }, ({ path, set }) => {
      if (path.startsWith("/api/") && set.headers["content-security-policy"] === undefined) {
        set.headers["content-security-policy"] = API_CSP;
      }
    })
    .onError({ as: "global" }, ({ error, code, set }) => {
      const requestId = String(set.headers["x-request-id"] ?? ulid());
      const { status, body, headers } = toErrorResponse(error, code, requestId, log);
      return new Response(JSON.stringify(body), {
        status,
        headers: {
          ...headers,
          "content-type": "application/json",
          "x-request-id": requestId,
          "x-content-type-options": "nosniff",
          "content-security-policy": API_CSP,
        },
      });
    })
    .onAfterResponse({ as: "global" }, ({ request, path, set, ...rest }) => {
      const ctx = rest as { requestId?: string; startedAt?: number; principal?: Principal | null };
      log.info("request", {
        request_id: ctx.requestId ?? set.headers["x-request-id"],
        method: request.method,
        path,
        status: set.status,
        ms: ctx.startedAt !== undefined ? Math.round((performance.now() - ctx.startedAt) * 100) / 100 : undefined,
        user_id: ctx.principal?.userId,
      });
    });
}

/**
 * The principal behind an Authorization header, or null. Anything unusable (garbage, expired,
 * forged, revoked) is null: the caller is treated as anonymous, and routes that need a caller
 * answer 401.
 */
async function authenticate(services: Services, header: string | null): Promise<Principal | null> {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (!match) return null;
  const credential = match[1]!;
  if (credential.startsWith("quire_live_")) return services.apiKeys.authenticate(credential, Math.floor(Date.now() / 1000));
  if (credential.length > 8192) return null;
  const claims = await services.tokens.verify(credential);
  if (!claims || !services.sessions.isActive(claims.sessionId, nowMs())) return null;
  return { kind: "session", userId: claims.userId, orgId: claims.orgId, sessionId: claims.sessionId };
}
