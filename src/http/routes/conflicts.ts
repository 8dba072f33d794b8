import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * Conflict artifacts as docs/interfaces.md §3 lists them: the list per workspace, the raw ours/theirs file
 * (exact bytes: text/markdown for a page, a download otherwise) and the resolve that removes the artifacts (the local version stays).
 */
export function conflictRoutes(services: Services) {
  const { conflictService } = services;
  return new Elysia()
    .use(httpCore(services))
    .get("/api/v1/workspaces/:id/conflicts", ({ principal, params }) => conflictService.list(requirePrincipal(principal), params.id))
    .get("/api/v1/conflicts/:page_id/:timestamp/:version", ({ principal, params, set }) => {
      const file = conflictService.file(requirePrincipal(principal), params.page_id, params.timestamp, params.version);
      // The exact bytes; a file other than a page is a download, never rendered or sniffed.
      set.headers["content-type"] = file.contentType;
      set.headers["x-content-type-options"] = "nosniff";
      if (file.attachment !== null) set.headers["content-disposition"] = `attachment; filename="${file.attachment.replace(/[^A-Za-z0-9._-]/g, "_")}"`;
      return new Blob([new Uint8Array(file.bytes)], { type: file.contentType });
    })
    .post("/api/v1/conflicts/:page_id/:timestamp/resolve", ({ principal, params }) =>
      conflictService.resolveArtifacts(requirePrincipal(principal), params.page_id, params.timestamp),
    );
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const conflictsDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/conflicts": { summary: "Open conflicts", tag: "git" },
  "GET /api/v1/conflicts/:page_id/:timestamp/:version": { summary: "A conflict's ours or theirs file (raw)", tag: "git", produces: "text/markdown" },
  "POST /api/v1/conflicts/:page_id/:timestamp/resolve": { summary: "Remove a conflict's artifacts", tag: "git" },
};
