import { z } from "zod";
import { ulidString, lazyInput } from "../core/validate.ts";
import { lazyOutput, listOutput } from "../core/schemas.ts";

const body = lazyInput(() => z.string({ error: "is required" }).trim().min(1, "must not be empty").max(10_000, "must be at most 10000 characters"));

/** POST /api/v1/workspaces/:id/comments. A reply names its parent; its page is the parent's. */
export const createCommentInput = lazyInput(() => z.strictObject({
  page_path: z.string().max(512, "must be at most 512 characters").optional(),
  body,
  parent_id: ulidString.optional(),
  anchor: z.string().max(500, "must be at most 500 characters").optional(),
}));

/** POST /api/v1/share-links/:token/comments: the link names the page, so a comment names only its thread. */
export const createLinkCommentInput = lazyInput(() => createCommentInput.unwrap().omit({ page_path: true }));

/** PUT /api/v1/comments/:id. */
export const updateCommentInput = lazyInput(() => z.strictObject({ body }));

/** GET /api/v1/workspaces/:id/comments query. */
export const listCommentsQuery = lazyInput(() => z.object({
  page: z.string().max(512, "must be at most 512 characters").optional(),
  resolved: z.enum(["true", "false"], { error: "must be true or false" }).optional(),
  limit: z.coerce.number({ error: "must be a number" }).int("must be an integer").min(1, "must be between 1 and 100").max(100, "must be between 1 and 100").default(50),
  cursor: z.string().max(200).optional(),
}));

/** GET /api/v1/share-links/:token/comments query: the link's page only. */
export const listLinkCommentsQuery = lazyInput(() => listCommentsQuery.unwrap().omit({ page: true }));

// ---- outputs (the OpenAPI document is generated from these) ----

/** A comment or reply; `page_path` follows the page when it moves. */
export const commentOutput = lazyOutput(() => z.object({
  id: z.string(),
  workspace_id: z.string(),
  page_path: z.string(),
  page_id: z.string().nullable(),
  parent_id: z.string().nullable().describe("The thread's first comment, for a reply"),
  author: z.object({ id: z.string().nullable(), name: z.string() }).describe("Name \"Deleted user\" once their account is gone"),
  body: z.string(),
  mentions: z.array(z.string()).describe("Ids of the people mentioned"),
  anchor: z.string().nullable(),
  resolved: z.boolean(),
  resolved_by: z.string().nullable(),
  resolved_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
}));

/** GET /api/v1/workspaces/:id/comments */
export const commentListOutput = lazyOutput(() => listOutput(commentOutput));
