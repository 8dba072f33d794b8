import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import type { Principal } from "../../core/principal.ts";
import { historyAccess } from "../../history/access.ts";

/**
 * Page history (DESIGN.md §15): a page's versions, one version, diffs, restore, the trash and the
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
    .post("/:id/history/restore", ({ principal, params, body }) => history.restore(access(principal, params.id), body))
    .get("/:id/trash", ({ principal, params }) => history.trash(access(principal, params.id)))
    .post("/:id/trash/restore", ({ principal, params, body }) => history.restoreTrash(access(principal, params.id), body))
    .get("/:id/changes", ({ principal, params, query }) => history.changes(access(principal, params.id), query, `/api/v1/workspaces/${params.id}`));
}
