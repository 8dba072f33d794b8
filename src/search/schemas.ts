import { z } from "zod";
import { lazyInput } from "../core/validate.ts";
import { lazyOutput } from "../core/schemas.ts";

/** GET /api/v1/workspaces/:id/search query. */
export const searchQuery = lazyInput(() => z.object({
  q: z
    .string({ error: "is required" })
    .trim()
    .min(1, "is required")
    .max(500, "must be at most 500 characters"),
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be between 1 and 100")
    .max(100, "must be between 1 and 100")
    .default(20),
}));

// ---- outputs (the OpenAPI document is generated from these) ----

/** One matching page: its relevance and a snippet with the matches in <mark>. */
export const searchHitOutput = lazyOutput(() => z.object({
  page_id: z.string(),
  path: z.string(),
  title: z.string(),
  description: z.string(),
  score: z.number().describe("Relevance; higher is better"),
  snippet: z.string().describe("Escaped text with each match in <mark>…</mark>"),
}));

/** GET /api/v1/workspaces/:id/search: best first; `indexing` only while the index is being built. */
export const searchOutput = lazyOutput(() => z.object({
  items: z.array(searchHitOutput),
  indexing: z
    .object({ indexed: z.number().int(), total: z.number().int() })
    .optional()
    .describe("Present while the workspace's index is being built: results come from the pages indexed so far"),
}));
