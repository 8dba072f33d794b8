import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { analyticsRoutes } from "./analytics.ts";
import { outboundWebhookRoutes } from "./outbound-webhooks.ts";
import { onboardingRoutes } from "./onboarding.ts";
import { billingRoutes } from "./billing.ts";
import { openApiRoutes } from "./openapi.ts";

/**
 * The operations API as one plugin: analytics, outbound webhooks, onboarding, billing and the
 * Cloud-only routes, and the OpenAPI document. (One `.use` in app.ts: a longer chain there exceeds
 * TypeScript's instantiation depth.)
 */
export function opsApiRoutes(services: Services) {
  return new Elysia({ name: "quire-ops-api" })
    .use(analyticsRoutes(services))
    .use(outboundWebhookRoutes(services))
    .use(onboardingRoutes(services))
    .use(billingRoutes(services))
    .use(openApiRoutes(services));
}
