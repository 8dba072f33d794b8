import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { readinessChecks } from "../../ops/readiness.ts";
import type { HealthOutput, ReadinessOutput } from "../../ops/schemas.ts";
import { healthOutput, readinessOutput } from "../../ops/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** Public infrastructure endpoints: liveness (and the identity `quire status` confirms) and readiness. */
export function healthRoutes(services: Services) {
  return new Elysia()
    .use(httpCore(services))
    .get("/api/health", (): HealthOutput => ({ status: "ok", version: services.version, instance_id: services.instanceId }))
    .get("/api/ready", ({ set }): ReadinessOutput => {
      const { ready, checks } = readinessChecks(services.db, { storage: services.storage });
      if (!ready) set.status = 503;
      return { status: ready ? "ready" : "not_ready", checks };
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const healthDocs: RouteDocs = {
  "GET /api/health": { summary: "Liveness, version and instance id", tag: "infrastructure", auth: "public", response: healthOutput },
  "GET /api/ready": { summary: "Readiness checks (503 when not ready)", tag: "infrastructure", auth: "public", response: readinessOutput },
};
