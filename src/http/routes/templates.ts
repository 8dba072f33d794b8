import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { templateListOutput, templateOutput } from "../../collab/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** Built-in page templates; any signed-in caller may read them. */
export function templateRoutes(services: Services) {
  const { templates } = services;
  return new Elysia({ prefix: "/api/v1/templates" })
    .use(httpCore(services))
    .get("/", ({ principal }) => {
      requirePrincipal(principal);
      return templates.list();
    })
    .get("/:id", ({ principal, params }) => {
      requirePrincipal(principal);
      return templates.get(params.id);
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const templatesDocs: RouteDocs = {
  "GET /api/v1/templates": { summary: "Page templates", tag: "collab", response: templateListOutput },
  "GET /api/v1/templates/:id": { summary: "A template with its content", tag: "collab", response: templateOutput },
};
