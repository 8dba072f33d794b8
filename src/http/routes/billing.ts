import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal, requireSession } from "../guards.ts";
import { organizationExport, personalDataExport } from "../../billing/personal-data.ts";
import { checkoutInput, portalInput, stripeEvent } from "../../billing/schemas.ts";
import { deleteAccountInput } from "../../identity/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

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

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const billingDocs: RouteDocs = {
  "POST /api/v1/billing/checkout": { summary: "Checkout session with the payment provider", tag: "billing", body: checkoutInput, cloud: true, external: true },
  "POST /api/v1/billing/portal": { summary: "Customer-portal session", tag: "billing", body: portalInput, cloud: true, external: true },
  "GET /api/v1/billing/subscription": { summary: "The organization's subscription", tag: "billing", cloud: true },
  "GET /api/v1/billing/plans": { summary: "Plans and prices", tag: "billing", auth: "public", cloud: true },
  "GET /api/v1/billing/limits": { summary: "Plan limits and current usage", tag: "billing", cloud: true },
  "POST /api/webhooks/stripe": { summary: "Payment provider events (Stripe-Signature verified, idempotent)", tag: "billing", auth: "webhook-signature", body: stripeEvent, cloud: true },
  "GET /api/v1/users/me/export": { summary: "Export one's personal data", tag: "gdpr", cloud: true },
  "DELETE /api/v1/users/me": { summary: "Delete one's account (password, or email and a recent sign-in without one)", tag: "gdpr", body: deleteAccountInput, cloud: true },
  "GET /api/v1/orgs/:handle/export": { summary: "Export an organization's data (super admin)", tag: "gdpr", cloud: true },
};
