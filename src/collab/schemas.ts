import { z } from "zod";
import { lazyInput } from "../core/validate.ts";
import { lazyOutput, listOutput } from "../core/schemas.ts";

/**
 * Input schemas of the activity endpoints, shared by every transport (HTTP; MCP derives its tool's
 * in src/mcp/tool-inputs.ts). The comment inputs are in comment-schemas.ts.
 */

const limit = () =>
  z.coerce
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be between 1 and 100")
    .max(100, "must be between 1 and 100")
    .default(50);

/** GET /api/v1/workspaces/:id/activity query. */
export const activityQuery = lazyInput(() => z.object({
  limit: limit(),
  action: z.string().regex(/^[a-z][a-z_]{0,63}$/, "must be an action name such as page_created").optional(),
  cursor: z.string().max(200).optional(),
}));

/** GET /api/v1/workspaces/:id/page-activity query. */
export const pageActivityQuery = lazyInput(() => z.object({
  page: z.string({ error: "is required" }).min(1, "is required").max(512),
  limit: limit(),
  cursor: z.string().max(200).optional(),
}));

// ---- outputs (the OpenAPI document is generated from these) ----

/** One entry of the activity feed, newest first. */
export const activityOutput = lazyOutput(() => z.object({
  id: z.string(),
  action: z.string().describe("E.g. page_created, page_updated, page_moved, comment_created"),
  actor: z.object({ id: z.string().nullable(), name: z.string() }),
  page_path: z.string().nullable(),
  page_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  created_at: z.iso.datetime(),
}));

/** GET /api/v1/workspaces/:id/activity and …/page-activity */
export const activityListOutput = lazyOutput(() => listOutput(activityOutput));

/** A built-in page template as listed. */
export const templateSummaryOutput = lazyOutput(() => z.object({ id: z.string(), name: z.string(), description: z.string() }));
/** GET /api/v1/templates/:id: the template with its Markdown. */
export const templateOutput = lazyOutput(() => templateSummaryOutput.unwrap().extend({ content: z.string().describe("The page body (Markdown) to start from") }));
/** GET /api/v1/templates: all of them (one page). */
export const templateListOutput = lazyOutput(() => z.object({ items: z.array(templateSummaryOutput), next_cursor: z.null() }));

/** Someone who can read the workspace: id and display name only (no email), for mentions and presence. */
export const personOutput = lazyOutput(() => z.object({ id: z.string(), name: z.string() }));
/** GET /api/v1/workspaces/:id/people: everyone (one page), by name. */
export const personListOutput = lazyOutput(() => z.object({ items: z.array(personOutput), next_cursor: z.null() }));
