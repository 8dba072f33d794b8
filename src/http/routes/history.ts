import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import type { Principal } from "../../core/principal.ts";
import { historyAccess } from "../../history/access.ts";
import { pageOutput } from "../../content/schemas.ts";
import {
  blameOutput,
  blameQuery,
  changesOutput,
  changesQuery,
  diffOutput,
  diffQuery,
  historyOutput,
  historyQuery,
  restoreInput,
  trashOutput,
  trashRestoreInput,
  versionContentOutput,
  versionQuery,
} from "../../history/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * Page history (docs/decisions/page-history.md): a page's versions, one version, diffs, restore, the trash and the
 * workspace's changes. `:id` is the workspace's id or slug; rights are those of the page.
 */
export function historyRoutes(services: Services) {
  const { history } = services;
  const access = (principal: Principal | null, ref: string) => historyAccess(services, requirePrincipal(principal), ref);
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/history", ({ principal, params, query }) => history.list(access(principal, params.id), query))
    .get("/:id/history/version", ({ principal, params, query }) => history.version(access(principal, params.id), query))
    .get("/:id/history/diff", ({ principal, params, query }) => history.diff(access(principal, params.id), query))
    .get("/:id/history/blame", ({ principal, params, query }) => history.blame(access(principal, params.id), query))
    .post("/:id/history/restore", ({ principal, params, body }) => history.restore(access(principal, params.id), body))
    .get("/:id/trash", ({ principal, params }) => history.trash(access(principal, params.id)))
    .post("/:id/trash/restore", ({ principal, params, body }) => history.restoreTrash(access(principal, params.id), body))
    .get("/:id/changes", ({ principal, params, query }) => history.changes(access(principal, params.id), query, `/api/v1/workspaces/${params.id}`));
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const historyDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/history": { summary: "A page's versions, newest first", tag: "history", query: historyQuery, response: historyOutput },
  "GET /api/v1/workspaces/:id/history/version": { summary: "A page as it was at a commit (?html=true adds its body rendered by the site's renderer)", tag: "history", query: versionQuery, response: versionContentOutput },
  "GET /api/v1/workspaces/:id/history/diff": { summary: "Diff of two versions of a page (or a version and the current file); ?words=true adds word highlights, ?rendered=true the rendered diff", tag: "history", query: diffQuery, response: diffOutput },
  "GET /api/v1/workspaces/:id/history/blame": { summary: "Each line of a page's current file with the version that last wrote it", tag: "history", query: blameQuery, response: blameOutput },
  "POST /api/v1/workspaces/:id/history/restore": { summary: "Restore a version (hash-checked save)", tag: "history", body: restoreInput, response: pageOutput },
  "GET /api/v1/workspaces/:id/trash": { summary: "Deleted pages", tag: "history", response: trashOutput },
  "POST /api/v1/workspaces/:id/trash/restore": { summary: "Restore a deleted page", tag: "history", body: trashRestoreInput, response: pageOutput },
  "GET /api/v1/workspaces/:id/changes": { summary: "Pages changed since a date or commit", tag: "history", query: changesQuery, response: changesOutput },
};
