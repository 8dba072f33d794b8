import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

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
