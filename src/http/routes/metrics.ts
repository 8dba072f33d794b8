import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { ForbiddenError, NotFoundError } from "../../core/errors.ts";
import { isPlatformOwner } from "../../identity/platform-owner.ts";
import { METRICS_CONTENT_TYPE } from "../../ops/metrics.ts";

/**
 * `GET /metrics` on the main port: only with FF_METRICS=true and no METRICS_PORT (docs/interfaces.md §3: the
 * loopback listener serves it *instead*), and only to a platform owner's API key with the
 * `admin` or `admin:read` scope. Registered even when off so the path answers 404 rather than
 * the web app's page.
 */
export function metricsRoutes(services: Services) {
  const { config, metrics, db } = services;
  return new Elysia().use(httpCore(services)).get("/metrics", ({ principal, set }) => {
    if (!config.metrics.enabled || config.metrics.port !== undefined) throw new NotFoundError();
    const p = requirePrincipal(principal);
    const scoped = p.kind === "api_key" && (p.scopes.includes("admin") || p.scopes.includes("admin:read"));
    if (!scoped || !isPlatformOwner(db, p.userId)) {
      throw new ForbiddenError("Metrics need a platform owner's API key with the admin or admin:read scope");
    }
    set.headers["content-type"] = METRICS_CONTENT_TYPE;
    set.headers["cache-control"] = "no-store";
    return metrics.render();
  });
}
