import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { resolveConflictInput } from "../../git/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * Git sync endpoints scoped to a workspace: the manual sync (admin) and the inspect/resolve pair
 * for one conflict (read / edit access). A conflict id is `{page_id}-{YYYYMMDDTHHMMSSZ}`.
 */
export function gitSyncRoutes(services: Services) {
  const { conflictService } = services;
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .post("/:id/sync", ({ principal, params }) => conflictService.sync(requirePrincipal(principal), params.id))
    .get("/:id/sync/conflicts/:conflict_id", ({ principal, params }) =>
      conflictService.inspect(requirePrincipal(principal), params.id, params.conflict_id),
    )
    .post("/:id/sync/conflicts/:conflict_id/resolve", ({ principal, params, body }) =>
      conflictService.resolve(requirePrincipal(principal), params.id, params.conflict_id, body),
    );
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const gitSyncDocs: RouteDocs = {
  "POST /api/v1/workspaces/:id/sync": { summary: "Pull and reconcile now (admin)", tag: "git" },
  "GET /api/v1/workspaces/:id/sync/conflicts/:conflict_id": { summary: "Inspect a sync conflict", tag: "git" },
  "POST /api/v1/workspaces/:id/sync/conflicts/:conflict_id/resolve": { summary: "Resolve a sync conflict", tag: "git", body: resolveConflictInput },
};
