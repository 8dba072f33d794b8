import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { onboardingOutput, updateOnboardingInput } from "../../identity/onboarding-schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** GET|PATCH /api/v1/users/me/onboarding: the caller's first-run checklist. */
export function onboardingRoutes(services: Services) {
  const { onboarding } = services;
  return new Elysia({ prefix: "/api/v1/users/me" })
    .use(httpCore(services))
    .get("/onboarding", ({ principal }) => onboarding.get(requirePrincipal(principal).userId))
    .patch("/onboarding", ({ principal, body }) => onboarding.update(requirePrincipal(principal).userId, body));
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const onboardingDocs: RouteDocs = {
  "GET /api/v1/users/me/onboarding": { summary: "The caller's onboarding checklist", tag: "onboarding", response: onboardingOutput },
  "PATCH /api/v1/users/me/onboarding": { summary: "Mark onboarding steps, dismiss the checklist", tag: "onboarding", body: updateOnboardingInput, response: onboardingOutput },
};
