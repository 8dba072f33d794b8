import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { activityListOutput, activityQuery, pageActivityQuery } from "../../collab/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** The workspace activity feed and one page's history, newest first. */
export function activityRoutes(services: Services) {
  const { activity } = services;
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/activity", ({ principal, params, query }) => activity.list(requirePrincipal(principal), params.id, query))
    .get("/:id/page-activity", ({ principal, params, query }) =>
      activity.forPage(requirePrincipal(principal), params.id, query),
    );
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const activityDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/activity": { summary: "Workspace activity", tag: "collab", query: activityQuery, response: activityListOutput },
  "GET /api/v1/workspaces/:id/page-activity": { summary: "One page's history", tag: "collab", query: pageActivityQuery, response: activityListOutput },
};
