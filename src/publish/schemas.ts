import { z } from "zod";

/**
 * Input schemas of the publishing domain (quality scan, export, the published site). Every
 * transport — the HTTP routes, the MCP tools, the CLI — validates with these.
 */

/** GET /api/v1/workspaces/:id/quality query (and the MCP quality tools' `path`). */
export const qualityQuery = z.object({
  path: z.string().min(1, "must not be empty").max(1024, "must be at most 1024 characters").optional(),
});
export type QualityQuery = z.infer<typeof qualityQuery>;
