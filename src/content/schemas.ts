import { z } from "zod";
import { CONTROL } from "../core/validate.ts";

/**
 * One schema per input of the content ledger, used by every transport that accepts it (the HTTP
 * routes now; MCP tools and the OpenAPI document later).
 */

const line = (max: number) =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !CONTROL.test(s), "must not contain control characters");

export const pageTitle = line(200);
export const pageTags = z.array(line(64)).max(50, "at most 50 tags");
const pageDescription = z
  .string()
  .max(1000, "must be at most 1000 characters")
  .refine((s) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(s), "must not contain control characters");
const pageBody = z.string().refine((s) => !s.includes("\u0000"), "must not contain NUL characters");
const hash = z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be a content hash (sha256:<hex>)");

export const createPageInput = z.object({
  title: pageTitle,
  body: pageBody.optional(),
  description: pageDescription.optional(),
  publish: z.boolean().optional(),
  tags: pageTags.optional(),
});
export type CreatePageInput = z.infer<typeof createPageInput>;

/** Frontmatter keys an update may set; each edits only its own lines of the YAML. */
export const frontmatterPatch = z
  .object({
    title: pageTitle.optional(),
    tags: pageTags.optional(),
    description: pageDescription.optional(),
    publish: z.boolean().optional(),
    status: z.enum(["draft", "published", "archived"]).optional(),
    nav_order: z.number().int().min(-1_000_000).max(1_000_000).optional(),
  })
  .strict();

export const updatePageInput = z
  .object({
    body: pageBody.optional(),
    // SPEC.md spells it lastKnownHash; DESIGN.md §8 accepts the snake_case form too.
    lastKnownHash: hash.optional(),
    last_known_hash: hash.optional(),
    frontmatter: frontmatterPatch.optional(),
  })
  .transform(({ last_known_hash, lastKnownHash, ...rest }) => ({ ...rest, lastKnownHash: lastKnownHash ?? last_known_hash }));
export type UpdatePageInput = z.infer<typeof updatePageInput>;

/** Move: `new_path`; the POST alias names the page with `path` (or `old_path`). */
export const movePageInput = z.object({ new_path: z.string() });
export const moveAliasInput = z
  .object({ path: z.string().optional(), old_path: z.string().optional(), new_path: z.string() })
  .refine((v) => v.path !== undefined || v.old_path !== undefined, { message: "is required", path: ["path"] });

export const reorderInput = z.object({
  parent_path: z.string().max(512).optional().nullable(),
  order: z
    .array(z.object({ id: z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, "must be a ULID"), sort_order: z.number().int().min(0).max(1_000_000) }))
    .min(1, "must not be empty")
    .max(10_000),
});
export type ReorderInput = z.infer<typeof reorderInput>;
