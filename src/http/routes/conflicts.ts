import { Elysia } from "elysia";
import type { Services } from "../../app.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

/**
 * Conflict artifacts as SPEC.md lists them: the list per workspace, the raw ours/theirs file
 * (text/markdown) and the resolve that removes the artifacts (the local version stays).
 */
export function conflictRoutes(services: Services) {
  const { conflictService } = services;
  return new Elysia()
    .use(httpCore(services))
    .get("/api/v1/workspaces/:id/conflicts", ({ principal, params }) => conflictService.list(requirePrincipal(principal), params.id))
    .get("/api/v1/conflicts/:page_id/:timestamp/:version", ({ principal, params, set }) => {
      const text = conflictService.file(requirePrincipal(principal), params.page_id, params.timestamp, params.version);
      set.headers["content-type"] = "text/markdown; charset=utf-8";
      return text;
    })
    .post("/api/v1/conflicts/:page_id/:timestamp/resolve", ({ principal, params }) =>
      conflictService.resolveArtifacts(requirePrincipal(principal), params.page_id, params.timestamp),
    );
}
