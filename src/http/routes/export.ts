import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { parseInput } from "../../core/validate.ts";
import { exportDownloadParams, exportInput } from "../../publish/schemas.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import type { RouteDocs } from "../openapi.ts";

const zipHeaders = (filename: string, size?: number): Record<string, string> => ({
  "content-type": "application/zip",
  "content-disposition": `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
  "cache-control": "no-store",
  ...(size !== undefined ? { "content-length": String(size) } : {}),
});

/**
 * The static export, synchronous as docs/interfaces.md §3 says: GET (or POST, the compatibility alias) renders
 * the published site and streams the ZIP in the same response. Admins only; one per workspace per
 * 24 hours. `/api/v1/exports/:token` serves an export prepared for MCP's quire_export (15 minutes).
 */
export function exportRoutes(services: Services) {
  const handler = ({ principal, params, query, body }: { principal: Parameters<typeof requirePrincipal>[0]; params: { id: string }; query: unknown; body: unknown }) => {
    const input = body !== undefined && body !== null && typeof body === "object" && Object.keys(body).length > 0 ? body : query;
    const opened = services.exporter.open(requirePrincipal(principal), params.id, input);
    return new Response(opened.body, { headers: zipHeaders(opened.filename) });
  };
  return new Elysia({ prefix: "/api/v1" })
    .use(httpCore(services))
    .get("/workspaces/:id/export", handler)
    .post("/workspaces/:id/export", handler)
    .get("/exports/:token", ({ params }) => {
      const { token } = parseInput(exportDownloadParams, params);
      const download = services.exporter.download(token);
      return new Response(download.body, { headers: zipHeaders(download.filename, download.size) });
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const exportDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/export": { summary: "The published site as a ZIP of static HTML, rendered in this request (admin)", tag: "export", query: exportInput, produces: "application/zip" },
  "POST /api/v1/workspaces/:id/export": { summary: "As GET (compatibility alias); options in the body", tag: "export", body: exportInput, produces: "application/zip" },
  "GET /api/v1/exports/:token": { summary: "A prepared export's download (15 minutes)", tag: "export", auth: "public", params: exportDownloadParams, produces: "application/zip" },
};
