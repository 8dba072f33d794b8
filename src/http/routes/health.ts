import { Elysia } from "elysia";
import type { Services } from "../../app.ts";
import { readinessChecks } from "../../ops/readiness.ts";

export function healthRoutes(services: Services) {
  return new Elysia()
    .get("/api/health", () => ({ status: "ok", version: services.version, instance_id: services.instanceId }))
    .get("/api/ready", ({ set }) => {
      const { ready, checks } = readinessChecks(services.db);
      if (!ready) set.status = 503;
      return { status: ready ? "ready" : "not_ready", checks };
    });
}
