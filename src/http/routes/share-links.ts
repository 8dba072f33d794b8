import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal, requireSession } from "../guards.ts";

/** Share links: the admin's list, create (token shown once) and revoke; a signed-in user's join. */
export function shareLinkRoutes(services: Services) {
  const { shareLinks } = services;
  return new Elysia()
    .use(httpCore(services))
    .get("/api/v1/workspaces/:id/share-links", ({ principal, params, query }) =>
      shareLinks.list(requirePrincipal(principal), params.id, query),
    )
    .post("/api/v1/workspaces/:id/share-links", ({ principal, params, body, set }) => {
      const link = shareLinks.create(requirePrincipal(principal), params.id, body);
      set.status = 201;
      return link;
    })
    .delete("/api/v1/workspaces/:id/share-links/:linkId", ({ principal, params, set }) => {
      shareLinks.revoke(requirePrincipal(principal), params.id, params.linkId);
      set.status = 204;
    })
    // Joining is something a person does with their own account, so API keys cannot.
    .post("/api/v1/share-links/:token/use", ({ principal, params }) => shareLinks.use(requireSession(principal), params.token));
}
