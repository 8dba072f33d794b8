import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

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
