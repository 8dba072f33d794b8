import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

/** Full-text search inside one workspace the caller can read. */
export function searchRoutes(services: Services) {
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/search", ({ principal, params, query }) =>
      services.search.search(requirePrincipal(principal), params.id, query),
    );
}
