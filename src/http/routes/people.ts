import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

/** GET /api/v1/workspaces/:id/people — who can read the workspace (ids and names), for mentions and presence. */
export function peopleRoutes(services: Services) {
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/people", ({ principal, params }) => services.people.list(requirePrincipal(principal), params.id));
}
