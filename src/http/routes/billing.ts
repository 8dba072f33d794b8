import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal, requireSession } from "../guards.ts";
import { organizationExport, personalDataExport } from "../../billing/personal-data.ts";

/**
 * Billing and the other Cloud-only routes of docs/interfaces.md §3. They are registered in both editions (so
 * the OpenAPI document and the route list are the same everywhere); in Community each one answers
 * 404 NOT_FOUND before looking at credentials or the body, exactly as a route that does not exist.
 */
export function billingRoutes(services: Services) {
  const { billing } = services;
  const cloud = () => billing.requireCloud();
  return new Elysia()
    .use(httpCore(services))
    .post("/api/v1/billing/checkout", ({ principal, body }) => {
      cloud();
      return billing.checkout(requirePrincipal(principal), body);
    })
    .post("/api/v1/billing/portal", ({ principal, body }) => {
      cloud();
      return billing.portal(requirePrincipal(principal), body);
    })
    .get("/api/v1/billing/subscription", ({ principal }) => {
      cloud();
      return billing.subscription(requirePrincipal(principal));
    })
    .get("/api/v1/billing/plans", () => billing.plans())
    .get("/api/v1/billing/limits", ({ principal }) => {
      cloud();
      return billing.limits(requirePrincipal(principal));
    })
    .post(
      "/api/webhooks/stripe",
      async ({ request }) => {
        cloud();
        return billing.receiveStripe(request.headers, new Uint8Array(await request.arrayBuffer()));
      },
      // The signature is over the raw bytes: the framework must not parse the body first.
      { parse: "none" },
    )
    .get("/api/v1/users/me/export", ({ principal }) => {
      cloud();
      return personalDataExport(services, requirePrincipal(principal).userId);
    })
    .delete("/api/v1/users/me", ({ principal, body }) => {
      cloud();
      return services.accountDeletion.delete(requireSession(principal), body);
    })
    .get("/api/v1/orgs/:handle/export", ({ principal, params }) => {
      cloud();
      return organizationExport(services.db, services.permissions, requirePrincipal(principal).userId, params.handle);
    });
}
