import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import {
  commentListOutput,
  commentOutput,
  createCommentInput,
  createLinkCommentInput,
  listCommentsQuery,
  listLinkCommentsQuery,
  updateCommentInput,
} from "../../collab/comment-schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** Comments on pages: listed and created per workspace (or through a page share link), changed by id. */
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
    )
    // A page share link at `comment`: its one page's thread, for the signed-in person holding it.
    .get("/share-links/:token/comments", ({ principal, params, query }) => comments.listThroughLink(principal ?? null, params.token, query))
    .post("/share-links/:token/comments", ({ principal, params, body, set }) => {
      const created = comments.createThroughLink(principal ?? null, params.token, body);
      set.status = 201;
      return created;
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const commentsDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/comments": { summary: "Comments (filter by page)", tag: "collab", query: listCommentsQuery, response: commentListOutput },
  "POST /api/v1/workspaces/:id/comments": { summary: "Add a comment", tag: "collab", body: createCommentInput, status: 201, response: commentOutput },
  "GET /api/v1/comments/:id": { summary: "A comment", tag: "collab", response: commentOutput },
  "PUT /api/v1/comments/:id": { summary: "Edit a comment", tag: "collab", body: updateCommentInput, response: commentOutput },
  "DELETE /api/v1/comments/:id": { summary: "Delete a comment", tag: "collab", status: 204 },
  "POST /api/v1/comments/:id/resolve": { summary: "Resolve a thread", tag: "collab", response: commentOutput },
  "POST /api/v1/comments/:id/unresolve": { summary: "Reopen a thread", tag: "collab", response: commentOutput },
  "GET /api/v1/share-links/:token/comments": {
    summary: "The comments of a page share link's page (a comment-level link, signed in; as a missing page where the link opens nothing)",
    tag: "collab",
    query: listLinkCommentsQuery,
    response: commentListOutput,
  },
  "POST /api/v1/share-links/:token/comments": {
    summary: "Add a comment or reply through a comment-level page share link (signed in; attributed to the signed-in person)",
    tag: "collab",
    body: createLinkCommentInput,
    status: 201,
    response: commentOutput,
  },
};
