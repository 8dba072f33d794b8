import { z } from "zod";

/** GET /api/v1/workspaces/:id/search query. */
export const searchQuery = z.object({
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
});
export type SearchQuery = z.infer<typeof searchQuery>;

/** The agent tool's search input (MCP `quire_search`): the same query rules, a smaller default page. */
export const searchToolInput = z.strictObject({
  query: z.string({ error: "is required" }).trim().min(1, "is required").max(500, "must be at most 500 characters"),
  limit: z.number({ error: "must be a number" }).int("must be an integer").min(1, "must be between 1 and 50").max(50, "must be between 1 and 50").default(10),
});
