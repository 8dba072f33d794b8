import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

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
