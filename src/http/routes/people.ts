import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { personListOutput } from "../../collab/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** GET /api/v1/workspaces/:id/people — who can read the workspace (ids and names), for mentions and presence. */
export function peopleRoutes(services: Services) {
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/people", ({ principal, params }) => services.people.list(requirePrincipal(principal), params.id));
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const peopleDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/people": { summary: "Who can read the workspace (for mentions)", tag: "collab", response: personListOutput },
};
