import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

/** The quality scan of a workspace the caller can read (`?path=` for one page). */
export function qualityRoutes(services: Services) {
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/quality", ({ principal, params, query }) => services.quality.scan(requirePrincipal(principal), params.id, query));
}
