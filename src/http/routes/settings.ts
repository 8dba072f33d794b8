import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { settingsOutput, updateSettingsInput } from "../../workspaces/workspace-schemas.ts";
import type { RouteDocs } from "../openapi.ts";

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

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const settingsDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/admin/settings": { summary: "Workspace settings", tag: "workspaces", response: settingsOutput },
  "PUT /api/v1/workspaces/:id/admin/settings": { summary: "Change workspace settings (merges the keys given)", tag: "workspaces", body: updateSettingsInput, response: settingsOutput },
  "POST /api/v1/workspaces/:id/admin/settings/webhook-secret/regenerate": { summary: "New inbound git webhook secret", tag: "git", response: settingsOutput },
};
