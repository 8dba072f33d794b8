import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal, requireSession } from "../guards.ts";
import { viewingInput, viewingListOutput } from "../../realtime/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * GET  /api/v1/workspaces/:id/viewing → {items: [{user_id, path, since}]}   who has which page open
 * POST /api/v1/workspaces/:id/viewing {path | null} → 204                    the caller's open page (sessions only)
 */
export function pageViewingRoutes(services: Services) {
  const { pageViewing } = services;
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/viewing", ({ principal, params }) => pageViewing.list(requirePrincipal(principal), params.id))
    .post("/:id/viewing", ({ principal, params, body, set }) => {
      pageViewing.report(requireSession(principal), params.id, body);
      set.status = 204;
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const pageViewingDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/viewing": { summary: "Who has which page open", tag: "collab", response: viewingListOutput },
  "POST /api/v1/workspaces/:id/viewing": { summary: "Report the caller's open page", tag: "collab", body: viewingInput, status: 204 },
};
