import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { searchOutput, searchQuery } from "../../search/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** Full-text search inside one workspace the caller can read. */
export function searchRoutes(services: Services) {
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/search", ({ principal, params, query }) =>
      services.search.search(requirePrincipal(principal), params.id, query),
    );
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const searchDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/search": { summary: "Full-text search in a workspace", tag: "search", query: searchQuery, response: searchOutput },
};
