import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { createWorkspaceInput, workspaceListOutput, workspaceOutput } from "../../workspaces/workspace-schemas.ts";
import { listQuery } from "../../access/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

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

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const workspacesDocs: RouteDocs = {
  "GET /api/v1/workspaces": { summary: "Workspaces the caller belongs to", tag: "workspaces", query: listQuery, response: workspaceListOutput },
  "POST /api/v1/workspaces": { summary: "Create a workspace (Super Admin)", tag: "workspaces", body: createWorkspaceInput, status: 201, response: workspaceOutput },
  "GET /api/v1/workspaces/:id": { summary: "A workspace", tag: "workspaces", response: workspaceOutput },
  "DELETE /api/v1/workspaces/:id": { summary: "Soft-delete a workspace", tag: "workspaces", status: 204 },
};
