import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { createWebhookInput, updateWebhookInput, webhookDeliveryListOutput, webhookListOutput, webhookOutput, webhookWithSecretOutput } from "../../webhooks/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** Outbound webhook definitions (admin); delivery is not active, so the delivery log is always empty. */
export function outboundWebhookRoutes(services: Services) {
  const { outboundWebhooks: hooks } = services;
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/webhooks", ({ principal, params }) => hooks.list(requirePrincipal(principal), params.id))
    .post("/:id/webhooks", async ({ principal, params, body, set }) => {
      const created = await hooks.create(requirePrincipal(principal), params.id, body);
      set.status = 201;
      return created;
    })
    .get("/:id/webhooks/:wid", ({ principal, params }) => hooks.get(requirePrincipal(principal), params.id, params.wid))
    .put("/:id/webhooks/:wid", ({ principal, params, body }) => hooks.update(requirePrincipal(principal), params.id, params.wid, body))
    .delete("/:id/webhooks/:wid", ({ principal, params, set }) => {
      hooks.delete(requirePrincipal(principal), params.id, params.wid);
      set.status = 204;
    })
    .get("/:id/webhooks/:wid/deliveries", ({ principal, params }) => hooks.deliveries(requirePrincipal(principal), params.id, params.wid));
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const outboundWebhooksDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/webhooks": { summary: "Outbound webhooks (admin)", tag: "webhooks", response: webhookListOutput },
  "POST /api/v1/workspaces/:id/webhooks": { summary: "Create an outbound webhook (secret shown once)", tag: "webhooks", body: createWebhookInput, status: 201, response: webhookWithSecretOutput },
  "GET /api/v1/workspaces/:id/webhooks/:wid": { summary: "An outbound webhook", tag: "webhooks", response: webhookOutput },
  "PUT /api/v1/workspaces/:id/webhooks/:wid": { summary: "Change an outbound webhook", tag: "webhooks", body: updateWebhookInput, response: webhookOutput },
  "DELETE /api/v1/workspaces/:id/webhooks/:wid": { summary: "Delete an outbound webhook", tag: "webhooks", status: 204 },
  "GET /api/v1/workspaces/:id/webhooks/:wid/deliveries": { summary: "Delivery log (always empty: delivery is not active)", tag: "webhooks", response: webhookDeliveryListOutput },
};
