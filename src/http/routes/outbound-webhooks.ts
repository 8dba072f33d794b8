import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

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
