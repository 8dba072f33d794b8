import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { qualityQuery, qualityReportOutput } from "../../publish/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** The quality scan of a workspace the caller can read (`?path=` for one page). */
export function qualityRoutes(services: Services) {
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/quality", ({ principal, params, query }) => services.quality.scan(requirePrincipal(principal), params.id, query));
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const qualityDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/quality": { summary: "Quality scan: readability, dead links, completeness", tag: "quality", query: qualityQuery, response: qualityReportOutput },
};
