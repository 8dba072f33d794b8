import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

/**
 * Workspace settings (admin). PUT merges the keys it is given. The inbound git webhook secret is
 * shown in GET and replaced with POST .../admin/settings/webhook-secret/regenerate.
 */
export function settingsRoutes(services: Services) {
  const { workspaceSettings } = services;
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/admin/settings", ({ principal, params }) => workspaceSettings.get(requirePrincipal(principal), params.id))
    .put("/:id/admin/settings", ({ principal, params, body }) =>
      workspaceSettings.update(requirePrincipal(principal), params.id, body),
    )
    .post("/:id/admin/settings/webhook-secret/regenerate", ({ principal, params }) =>
      workspaceSettings.regenerateWebhookSecret(requirePrincipal(principal), params.id),
    );
}
