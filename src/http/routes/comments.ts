import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

/** Comments on pages: listed and created per workspace, changed by id. */
export function commentRoutes(services: Services) {
  const { comments } = services;
  return new Elysia({ prefix: "/api/v1" })
    .use(httpCore(services))
    .get("/workspaces/:id/comments", ({ principal, params, query }) =>
      comments.list(requirePrincipal(principal), params.id, query),
    )
    .post("/workspaces/:id/comments", ({ principal, params, body, set }) => {
      const created = comments.create(requirePrincipal(principal), params.id, body);
      set.status = 201;
      return created;
    })
    .get("/comments/:id", ({ principal, params }) => comments.get(requirePrincipal(principal), params.id))
    .put("/comments/:id", ({ principal, params, body }) => comments.update(requirePrincipal(principal), params.id, body))
    .delete("/comments/:id", ({ principal, params, set }) => {
      comments.delete(requirePrincipal(principal), params.id);
      set.status = 204;
    })
    .post("/comments/:id/resolve", ({ principal, params }) => comments.setResolved(requirePrincipal(principal), params.id, true))
    .post("/comments/:id/unresolve", ({ principal, params }) =>
      comments.setResolved(requirePrincipal(principal), params.id, false),
    );
}
