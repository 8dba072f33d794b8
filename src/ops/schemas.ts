import { z } from "zod";
import { lazyInput } from "../core/validate.ts";
import { lazyOutput } from "../core/schemas.ts";

/**
 * Output schemas of the infrastructure endpoints (liveness and readiness). The OpenAPI document is
 * generated from them and test/http/openapi.test.ts checks real answers against it.
 */

/** GET /api/health: what `quire status` matches against runstate.json. */
export const healthOutput = lazyOutput(() => z.object({
  status: z.literal("ok"),
  version: z.string(),
  instance_id: z.string().describe("Changes at every start; identifies this running instance"),
}));
export type HealthOutput = z.infer<typeof healthOutput>;

const checkStatus = lazyInput(() => z.enum(["ok", "warning", "error"]));

/** GET /api/ready: each check, and whether the instance takes traffic (503 when not). */
export const readinessOutput = lazyOutput(() => z.object({
  status: z.enum(["ready", "not_ready"]),
  checks: z.object({
    database: z.object({ status: checkStatus, message: z.string().optional() }),
    git: z.object({ status: checkStatus, message: z.string().optional() }),
    email_outbox: z.object({ status: checkStatus, pending: z.number().int().optional().describe("Emails waiting to go out"), message: z.string().optional() }),
    workspaces: z.object({ status: checkStatus, stopped: z.number().int().optional().describe("Workspaces whose reconciliation stopped"), message: z.string().optional() }),
    storage: z
      .object({ status: z.enum(["ok", "degraded", "unavailable"]), message: z.string().optional() })
      .optional()
      .describe("The data directory's disk: degraded under STORAGE_MIN_FREE_MB free, unavailable while writes fail (full or read-only); reads go on either way"),
  }),
}));
export type ReadinessOutput = z.infer<typeof readinessOutput>;
export type ReadinessChecksOutput = z.infer<typeof readinessOutput>["checks"];
