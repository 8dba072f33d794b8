import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal, requireSession } from "../guards.ts";
import { createShareLinkInput, listQuery, shareLinkListOutput, shareLinkUseOutput, shareLinkWithTokenOutput } from "../../access/schemas.ts";
import { sharedPageOutput } from "../../content/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

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
    .post("/api/v1/share-links/:token/use", ({ principal, params }) => shareLinks.use(requireSession(principal), params.token))
    // A page link: signed in or not; a member who sees the page reads it with their own access.
    .get("/api/v1/share-links/:token/page", ({ principal, params }) => services.sharedPages.open(principal ?? null, params.token));
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const shareLinksDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/share-links": { summary: "Share links", tag: "members", query: listQuery, response: shareLinkListOutput },
  "POST /api/v1/workspaces/:id/share-links": { summary: "Create a share link (token shown once)", tag: "members", body: createShareLinkInput, status: 201, response: shareLinkWithTokenOutput },
  "DELETE /api/v1/workspaces/:id/share-links/:linkId": { summary: "Revoke a share link", tag: "members", status: 204 },
  "POST /api/v1/share-links/:token/use": { summary: "Join a workspace through a share link", tag: "members", response: shareLinkUseOutput },
  "GET /api/v1/share-links/:token/page": {
    summary: "Open the page of a page share link (as a missing page when the page is restricted and does not allow link:anyone)",
    tag: "members",
    response: sharedPageOutput,
  },
};
