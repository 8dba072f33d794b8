import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

/** Workspaces: list (member of / Super Admin over), create and delete (Super Admin), read (any role). */
export function workspaceRoutes(services: Services) {
  const { workspaceService } = services;
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/", ({ principal, query }) => workspaceService.list(requirePrincipal(principal), query))
    .post("/", async ({ principal, body, set }) => {
      const workspace = await workspaceService.create(requirePrincipal(principal), body);
      set.status = 201;
      return workspace;
    })
    .get("/:id", ({ principal, params }) => workspaceService.get(requirePrincipal(principal), params.id))
    .delete("/:id", async ({ principal, params, set }) => {
      await workspaceService.delete(requirePrincipal(principal), params.id);
      set.status = 204;
    });
}
