import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { listQuery, memberListOutput, memberOutput, setMemberRoleInput } from "../../access/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** Workspace members (admin): list, change a role, remove. */
export function memberRoutes(services: Services) {
  const { members } = services;
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/admin/members", ({ principal, params, query }) => members.list(requirePrincipal(principal), params.id, query))
    .put("/:id/admin/members/:user_id/role", ({ principal, params, body }) =>
      members.setRole(requirePrincipal(principal), params.id, params.user_id, body),
    )
    .delete("/:id/admin/members/:user_id", ({ principal, params, set }) => {
      members.remove(requirePrincipal(principal), params.id, params.user_id);
      set.status = 204;
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const membersDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/admin/members": { summary: "Members", tag: "members", query: listQuery, response: memberListOutput },
  "PUT /api/v1/workspaces/:id/admin/members/:user_id/role": { summary: "Change a member's role", tag: "members", body: setMemberRoleInput, response: memberOutput },
  "DELETE /api/v1/workspaces/:id/admin/members/:user_id": { summary: "Remove a member", tag: "members", status: 204 },
};
