import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

/** GET|PATCH /api/v1/users/me/onboarding: the caller's first-run checklist. */
export function onboardingRoutes(services: Services) {
  const { onboarding } = services;
  return new Elysia({ prefix: "/api/v1/users/me" })
    .use(httpCore(services))
    .get("/onboarding", ({ principal }) => onboarding.get(requirePrincipal(principal).userId))
    .patch("/onboarding", ({ principal, body }) => onboarding.update(requirePrincipal(principal).userId, body));
}
