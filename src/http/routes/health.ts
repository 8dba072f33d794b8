import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { readinessChecks } from "../../ops/readiness.ts";
import type { HealthOutput, ReadinessOutput } from "../../ops/schemas.ts";

/** Public infrastructure endpoints: liveness (and the identity `quire status` confirms) and readiness. */
export function healthRoutes(services: Services) {
  return new Elysia()
    .use(httpCore(services))
    .get("/api/health", (): HealthOutput => ({ status: "ok", version: services.version, instance_id: services.instanceId }))
    .get("/api/ready", ({ set }): ReadinessOutput => {
      const { ready, checks } = readinessChecks(services.db);
      if (!ready) set.status = 503;
      return { status: ready ? "ready" : "not_ready", checks };
    });
}
