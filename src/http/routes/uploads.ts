import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { contentAccess } from "../../content/access.ts";
import { uploadOutput } from "../../content/schemas.ts";
import { z } from "zod";
import { lazyInput } from "../../core/validate.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * Uploads (the content routes of docs/interfaces.md §3): POST /api/v1/content/:workspace/uploads (multipart field
 * `file`, editor) → 201 {filename, url, content_type, size}; GET .../uploads/:filename (readers).
 * Files are served with their real type and nosniff; an SVG additionally gets a sandboxing CSP and
 * is sent as an attachment, so opening it can never run script in the app's origin.
 */
const SVG_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'";
const FILE_CSP = "default-src 'none'; frame-ancestors 'none'";

export function uploadRoutes(services: Services) {
  const { uploads } = services;
  return new Elysia({ prefix: "/api/v1/content" })
    .use(httpCore(services))
    .post("/:workspace/uploads", async ({ principal, params, body, set }) => {
      const access = contentAccess(services, requirePrincipal(principal), params.workspace);
      const file = (body as Record<string, unknown> | null | undefined)?.file;
      const stored = await uploads.store(access, Array.isArray(file) ? file[0] : file);
      set.status = 201;
      return stored;
    })
    .get("/:workspace/uploads/:filename", ({ principal, params, set }) => {
      // Files referenced by the published pages of a public site are readable by anyone (docs/interfaces.md §3).
      const ws = services.workspaces.bySlug(params.workspace);
      const member = ws !== null && principal !== null && services.permissions.principalRole(principal, ws) !== null;
      const file =
        ws !== null && !member && services.site.isPublicUpload(ws, params.filename)
          ? uploads.openIn(ws.id, params.filename)
          : uploads.open(contentAccess(services, requirePrincipal(principal), params.workspace), params.filename);
      const svg = file.type.ext === "svg";
      // Set on `set.headers` (not a Response) so the HTTP core sees this CSP and keeps it.
      Object.assign(set.headers, {
        "content-type": file.type.mime,
        "x-content-type-options": "nosniff",
        "content-security-policy": svg ? SVG_CSP : FILE_CSP,
        "content-disposition": `${svg ? "attachment" : "inline"}; filename="${file.filename}"`,
        "cache-control": member || principal ? "private, max-age=300" : "public, max-age=300",
        "cross-origin-resource-policy": "same-origin",
      });
      return new Blob([new Uint8Array(file.bytes)], { type: file.type.mime });
    });
}

const uploadForm = lazyInput(() => z.object({ file: z.string().describe("The file (binary)") }));
/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const uploadsDocs: RouteDocs = {
  "POST /api/v1/content/:workspace/uploads": { summary: "Upload a file", tag: "content", body: uploadForm, bodyType: "multipart/form-data", status: 201, response: uploadOutput },
  "GET /api/v1/content/:workspace/uploads/:filename": { summary: "An uploaded file", tag: "content", produces: "application/octet-stream" },
};
