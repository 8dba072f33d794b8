import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import type { Principal } from "../../core/principal.ts";
import { contentAccess } from "../../content/access.ts";
import { decodeUrlPath, normalizeFolderPath } from "../../content/paths.ts";
import { parseInput } from "../../core/validate.ts";
import { moveAliasInput, createPageInput, movePageInput, pageOutput, reorderInput, treeOutput, treeQuery, updatePageInput } from "../../content/schemas.ts";
import { treeUnder } from "../../content/tree-slice.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * Pages by workspace slug and file path (the content routes of docs/interfaces.md §3):
 *   GET|POST|PUT|DELETE|PATCH /api/v1/content/:workspace/*path
 *   POST /api/v1/content/:workspace/move     alias of PATCH; body {path (or old_path), new_path}
 *   GET  /api/v1/content/:workspace/tree     ?folder=<path>&depth=<n>: a folder's part, n levels deep
 *   POST /api/v1/content/:workspace/reorder  {parent_path, order:[{id, sort_order}]} → 204
 * The bare segments tree, reorder, move and uploads are endpoints; pages with those names are
 * addressed with their `.md` suffix (`tree.md`).
 *
 * The page path is taken from the raw URL and decoded exactly once here, so every encoding trick
 * reaches the one validator in src/content/paths.ts.
 */
const PREFIX = "/api/v1/content/";

function pagePathOf(request: Request): string {
  const pathname = new URL(request.url).pathname;
  const rest = pathname.slice(PREFIX.length);
  const slash = rest.indexOf("/");
  return decodeUrlPath(slash < 0 ? "" : rest.slice(slash + 1));
}

export function contentRoutes(services: Services) {
  const { ledger } = services;
  const access = (principal: Principal | null, slug: string) => contentAccess(services, requirePrincipal(principal), slug);
  return new Elysia({ prefix: "/api/v1/content" })
    .use(httpCore(services))
    .get("/:workspace/tree", ({ principal, params, query }) => {
      const items = ledger.tree(access(principal, params.workspace)); // 404 for outsiders before any validation
      const { folder, depth } = parseInput(treeQuery, query);
      if (folder === undefined && depth === undefined) return { items, next_cursor: null };
      return { items: treeUnder(items, normalizeFolderPath(folder ?? "", "folder"), depth), next_cursor: null };
    })
    .post("/:workspace/reorder", async ({ principal, params, body, set }) => {
      await ledger.reorder(access(principal, params.workspace), body);
      set.status = 204;
    })
    .post("/:workspace/move", async ({ principal, params, body }) => {
      const caller = access(principal, params.workspace); // 404 for outsiders before any validation
      const input = parseInput(moveAliasInput, body);
      return ledger.move(caller, input.path ?? input.old_path!, { new_path: input.new_path });
    })
    .get("/:workspace/*", ({ principal, params, request }) => ledger.read(access(principal, params.workspace), pagePathOf(request)))
    .post("/:workspace/*", async ({ principal, params, request, body, set }) => {
      const page = await ledger.create(access(principal, params.workspace), pagePathOf(request), body);
      set.status = 201;
      return page;
    })
    .put("/:workspace/*", async ({ principal, params, request, body, set }) => {
      const { page, created } = await ledger.update(access(principal, params.workspace), pagePathOf(request), body);
      if (created) set.status = 201;
      return page;
    })
    .patch("/:workspace/*", ({ principal, params, request, body }) =>
      ledger.move(access(principal, params.workspace), pagePathOf(request), body),
    )
    .delete("/:workspace/*", async ({ principal, params, request, set }) => {
      await ledger.delete(access(principal, params.workspace), pagePathOf(request));
      set.status = 204;
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const contentDocs: RouteDocs = {
  "GET /api/v1/content/:workspace/tree": { summary: "The workspace's page tree", tag: "content", query: treeQuery, response: treeOutput },
  "POST /api/v1/content/:workspace/reorder": { summary: "Reorder pages in a folder", tag: "content", body: reorderInput, status: 204 },
  "POST /api/v1/content/:workspace/move": { summary: "Move a page (alias of PATCH)", tag: "content", body: moveAliasInput, response: pageOutput },
  "GET /api/v1/content/:workspace/*": { summary: "Read a page", tag: "content", response: pageOutput },
  "POST /api/v1/content/:workspace/*": { summary: "Create a page", tag: "content", body: createPageInput, status: 201, response: pageOutput },
  "PUT /api/v1/content/:workspace/*": { summary: "Update a page (lastKnownHash for concurrency; 201 when it creates the page)", tag: "content", body: updatePageInput, response: pageOutput, createdStatus: true },
  "PATCH /api/v1/content/:workspace/*": { summary: "Move or rename a page", tag: "content", body: movePageInput, response: pageOutput },
  "DELETE /api/v1/content/:workspace/*": { summary: "Delete a page", tag: "content", status: 204 },
};
