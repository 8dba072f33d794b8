import { z } from "zod";
import { lazyOutput } from "../core/schemas.ts";
import { CONTROL, closedObject, lazyInput } from "../core/validate.ts";

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

const pageTitle = lazyInput(() => line(200));
const pageTags = lazyInput(() => z.array(line(64)).max(50, "at most 50 tags"));
const pageDescription = lazyInput(() => z
  .string()
  .max(1000, "must be at most 1000 characters")
  .refine((s) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(s), "must not contain control characters"));
const pageBody = lazyInput(() => z.string().refine((s) => !s.includes("\u0000"), "must not contain NUL characters"));
const hash = lazyInput(() => z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be a content hash (sha256:<hex>)"));

/**
 * Closed: a field the create request does not have is a 400 naming it, never dropped — `content`
 * sent for `body`, or `tag` for `tags`, would otherwise make a page without what was sent
 * (docs/decisions/page-request-unknown-fields.md).
 */
export const createPageInput = lazyInput(() => closedObject({
  title: pageTitle,
  body: pageBody.optional(),
  description: pageDescription.optional(),
  publish: z.boolean().optional(),
  tags: pageTags.optional(),
}));
export type CreatePageInput = z.infer<typeof createPageInput>;

/** Frontmatter keys an update may set; each edits only its own lines of the YAML. */
const frontmatterPatch = lazyInput(() => z
  .object({
    title: pageTitle.optional(),
    tags: pageTags.optional(),
    description: pageDescription.optional(),
    publish: z.boolean().optional(),
    status: z.enum(["draft", "published", "archived"]).optional(),
    nav_order: z.number().int().min(-1_000_000).max(1_000_000).optional(),
  })
  .strict());

/** Closed like the create request: `content` sent for `body` must not answer 200 having changed nothing. */
export const updatePageInput = lazyInput(() => closedObject({
  body: pageBody.optional(),
  // docs/interfaces.md §1 spells it lastKnownHash; docs/architecture.md §8 accepts the snake_case form too.
  lastKnownHash: hash.optional(),
  last_known_hash: hash.optional(),
  frontmatter: frontmatterPatch.optional(),
}).transform(({ last_known_hash, lastKnownHash, ...rest }) => ({ ...rest, lastKnownHash: lastKnownHash ?? last_known_hash })));

/** Move: `new_path`; the POST alias names the page with `path` (or `old_path`). */
export const movePageInput = lazyInput(() => closedObject({ new_path: z.string() }));
export const moveAliasInput = lazyInput(() => closedObject({ path: z.string().optional(), old_path: z.string().optional(), new_path: z.string() }).refine(
  (v) => v.path !== undefined || v.old_path !== undefined,
  { message: "is required", path: ["path"] },
));

/**
 * Reorder: closed like create, update and move (docs/decisions/page-request-unknown-fields.md), and
 * so is each entry of `order` — a `path` sent for `id`, or `position` for `sort_order`, would
 * otherwise answer 204 having reordered nothing the caller meant.
 */
export const reorderInput = lazyInput(() => closedObject({
  parent_path: z.string().max(512).optional().nullable(),
  order: z
    .array(closedObject({ id: z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, "must be a ULID"), sort_order: z.number().int().min(0).max(1_000_000) }))
    .min(1, "must not be empty")
    .max(10_000),
}));

// ---- inputs of the agent tools (MCP): the same rules, shaped for a caller without URLs ----------

/** A page path as an agent writes it: a leading `/` and a missing `.md` are fine (paths.ts decides the rest). */
export const pagePath = lazyInput(() => z.string({ error: "is required" }).min(1, "must not be empty").max(520, "must be at most 512 characters"));
/** Longest page text a tool accepts in one argument (well under the 10 MB request limit). */
export const MAX_PAGE_CHARS = 2_000_000;
const pageText = lazyInput(() => pageBody.unwrap().refine((s) => s.length <= MAX_PAGE_CHARS, `must be at most ${MAX_PAGE_CHARS} characters`));
const cursor = lazyInput(() => z.string().max(512, "must be at most 512 characters"));

export const listPagesInput = lazyInput(() => z.strictObject({
  folder: z.string().max(512, "must be at most 512 characters").optional(),
  limit: z.number().int("must be an integer").min(1, "must be between 1 and 100").max(100, "must be between 1 and 100").default(25),
  cursor: cursor.optional(),
}));
export type ListPagesInput = z.infer<typeof listPagesInput>;

/** Default and largest slice of a page's content one read returns (about 5,000 tokens). */
export const DEFAULT_READ_CHARS = 20_000;
export const readPageInput = lazyInput(() => z.strictObject({
  path: pagePath,
  offset: z.number().int("must be an integer").min(0, "must not be negative").default(0),
  max_chars: z
    .number()
    .int("must be an integer")
    .min(1, "must be between 1 and 20000")
    .max(DEFAULT_READ_CHARS, `must be between 1 and ${DEFAULT_READ_CHARS}`)
    .default(DEFAULT_READ_CHARS),
}));

/** Upsert: creates the page, or replaces its body (and the metadata given) whatever its hash. */
export const writePageInput = lazyInput(() => z.strictObject({
  path: pagePath,
  title: pageTitle.optional(),
  body: pageText,
  description: pageDescription.optional(),
  tags: pageTags.optional(),
  publish: z.boolean().optional(),
}));
export type WritePageInput = z.infer<typeof writePageInput>;

/** One exact-text replacement; `find` must occur exactly once in the page's content. */
const pageEdit = lazyInput(() => z.strictObject({
  find: z.string().min(1, "must not be empty").max(100_000, "must be at most 100000 characters"),
  replace: z.string().max(MAX_PAGE_CHARS, `must be at most ${MAX_PAGE_CHARS} characters`).refine((s) => !s.includes("\u0000"), "must not contain NUL characters"),
}));
export type PageEdit = z.infer<typeof pageEdit>;

export const editPageInput = lazyInput(() => z
  .strictObject({
    path: pagePath,
    last_known_hash: hash,
    body: pageText.optional(),
    edits: z.array(pageEdit).min(1, "must not be empty").max(100, "at most 100 edits").optional(),
    frontmatter: frontmatterPatch.optional(),
  })
  .refine((v) => !(v.body !== undefined && v.edits !== undefined), { message: "give either body or edits, not both", path: ["edits"] })
  .refine((v) => v.body !== undefined || v.edits !== undefined || v.frontmatter !== undefined, {
    message: "give body, edits or frontmatter",
    path: ["body"],
  }));
export type EditPageInput = z.infer<typeof editPageInput>;

export const pagePathInput = lazyInput(() => z.strictObject({ path: pagePath }));
export const manifestInput = lazyInput(() => z.strictObject({
  limit: z.number().int("must be an integer").min(1, "must be between 1 and 500").max(500, "must be between 1 and 500").default(200),
  cursor: cursor.optional(),
}));
export const treeInput = lazyInput(() => z.strictObject({ folder: z.string().max(512, "must be at most 512 characters").optional() }));
/**
 * GET …/tree's query: without either parameter the whole tree (the default answer); with them a
 * folder's part of it, `depth` levels deep, each folder counting its direct children, so a client
 * can load a large tree folder by folder.
 */
export const treeQuery = lazyInput(() => z.object({
  folder: z.string().max(512, "must be at most 512 characters").optional().describe("Only the nodes under this folder (\"\" or absent: the root)"),
  depth: z.coerce
    .number()
    .int("must be an integer")
    .min(1, "must be between 1 and 64")
    .max(64, "must be between 1 and 64")
    .optional()
    .describe("Levels to include (1: the folder's direct children); deeper folders come without children, with child_count"),
}));

// ---- outputs: what the content endpoints answer (the OpenAPI document is generated from these) ----

const contentHash = lazyInput(() => z.string().regex(/^sha256:[0-9a-f]{64}$/).describe("sha256:<hex>; send it back as lastKnownHash"));

/** Why a page's file cannot be taken at face value; the page still loads (docs/architecture.md §5). */
const pageProblemOutput = lazyOutput(() => z.object({ kind: z.enum(["invalid_yaml"]), message: z.string() }));

/** The page object of docs/interfaces.md §9, as read, created, updated or moved. */
export const pageOutput = lazyOutput(() => z.object({
  page_id: z.string().describe("ULID, stable across moves"),
  path: z.string().describe("File path inside the workspace, ending in .md"),
  title: z.string(),
  description: z.string(),
  content: z.string().optional().describe("The Markdown body (on read and write answers)"),
  content_hash: contentHash,
  frontmatter_hash: contentHash,
  frontmatter: z.record(z.string(), z.unknown()).optional().describe("The file's frontmatter as parsed (absent when it is invalid)"),
  tags: z.array(z.string()),
  status: z.string().describe("draft, published or archived"),
  publish: z.boolean(),
  nav_order: z.number().nullable(),
  sort_order: z.number().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  updated_by: z.object({ id: z.string().nullable(), name: z.string() }).nullable().describe("Who saved it last (name \"Deleted user\" once their account is gone)"),
  problems: z.array(pageProblemOutput),
}));

/**
 * One node of the page tree: a page, or a folder with its children (its index.md gives it title and id).
 * Built at import, unlike the other answers (lazyOutput): it refers to itself, and its `children`
 * getter already builds the nested array only when asked.
 */
export const treeNodeOutput = z.object({
  type: z.enum(["page", "folder"]),
  name: z.string(),
  path: z.string().describe("A page's file path; a folder's path without a trailing slash"),
  page_id: z.string().nullable(),
  title: z.string(),
  sort_order: z.number().nullable(),
  nav_order: z.number().nullable(),
  publish: z.boolean(),
  status: z.string().nullable(),
  child_count: z.number().int().min(0).optional().describe("A folder's number of direct children; sent when the tree is asked for by folder or depth"),
  restricted: z.literal(true).optional().describe("The folder or page has its own access list (sent only then)"),
  get children() {
    return z.array(treeNodeOutput).optional();
  },
});

/** GET /api/v1/content/:workspace/tree: the whole tree in one page. */
export const treeOutput = lazyOutput(() => z.object({
  items: z.array(treeNodeOutput),
  next_cursor: z.null().describe("Always null: the tree comes whole"),
}));

/** POST /api/v1/content/:workspace/uploads: the stored file and the URL to link it with. */
export const uploadOutput = lazyOutput(() => z.object({
  filename: z.string().describe("The stored name (content-addressed)"),
  url: z.string().describe("Where the file is served; link to it from a page"),
  content_type: z.string(),
  size: z.number().int().min(0).describe("Bytes"),
}));

/** GET /api/v1/share-links/:token/page: the page a page share link opens, and at what level. */
export const sharedPageOutput = lazyOutput(() => z.object({
  page: pageOutput,
  html: z.string().describe("The body rendered as the published site renders it (sanitized)"),
  level: z.enum(["view", "comment", "edit"]).describe("What the link allows here"),
  via: z.enum(["access", "link"]).describe("access: the caller's own access as a member; link: the link's level, capped by the page's link:anyone allowance"),
}));
