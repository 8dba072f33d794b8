import { z } from "zod";
import { lazyInput } from "../core/validate.ts";
import { lazyOutput } from "../core/schemas.ts";
import { pagePath, readPageInput } from "../content/schemas.ts";
import { CHANNELS } from "./channel.ts";

/**
 * Inputs and outputs of page history (docs/decisions/page-history.md), shared by the REST routes, the MCP tools,
 * the CLI and the OpenAPI document.
 */

/** A commit id: 7 to 40 hex digits (an abbreviation must name one version of the page). */
const commitId = lazyInput(() => z
  .string({ error: "is required" })
  .trim()
  .regex(/^[0-9a-f]{7,40}$/i, "must be a commit id (7 to 40 hex digits)")
  .transform((s) => s.toLowerCase()));
const hash = lazyInput(() => z.string({ error: "is required" }).regex(/^sha256:[0-9a-f]{64}$/, "must be a content hash (sha256:<hex>)"));
const cursor = lazyInput(() => z.string().max(512, "must be at most 512 characters"));
const pageId = lazyInput(() => z.string({ error: "is required" }).regex(/^[A-Za-z0-9_-]{1,80}$/, "must be a trash_id from the trash list"));
const queryLimit = (fallback: number) =>
  z.coerce.number({ error: "must be a number" }).int("must be an integer").min(1, "must be between 1 and 100").max(100, "must be between 1 and 100").default(fallback);
const toolLimit = lazyInput(() => z.number().int("must be an integer").min(1, "must be between 1 and 100").max(100, "must be between 1 and 100").default(25));

/** GET …/history */
export const historyQuery = lazyInput(() => z.object({ path: pagePath, cursor: cursor.optional(), limit: queryLimit(50) }));
/** GET …/history/version */
export const versionQuery = lazyInput(() => z.object({ path: pagePath, commit: commitId, html: z.enum(["true", "false"]).optional() }));
/** GET …/history/diff (`to` missing: the current file) */
export const diffQuery = lazyInput(() => z.object({
  path: pagePath,
  from: commitId,
  to: commitId.optional(),
  words: z.enum(["true", "false"]).optional(),
  rendered: z.enum(["true", "false"]).optional(),
}));
/** GET …/history/blame */
export const blameQuery = lazyInput(() => z.object({ path: pagePath }));
/** POST …/history/restore */
export const restoreInput = lazyInput(() => z.strictObject({ path: pagePath, commit: commitId, last_known_hash: hash }));
/** POST …/trash/restore */
export const trashRestoreInput = lazyInput(() => z.strictObject({ trash_id: pageId, path: pagePath.optional() }));
/** GET …/changes: since an ISO date or a commit id. */
export const changesQuery = lazyInput(() => z.object({
  since: z
    .string({ error: "is required" })
    .trim()
    .refine((s) => /^[0-9a-f]{7,40}$/i.test(s) || (/^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s))), "must be an ISO date or a commit id"),
  cursor: cursor.optional(),
  limit: queryLimit(100),
}));

// ---- MCP tool inputs (JSON numbers; `workspace` is added by the tool layer) ----

export const pageHistoryToolInput = lazyInput(() => z.strictObject({ path: pagePath, cursor: cursor.optional(), limit: toolLimit }));
export const diffToolInput = lazyInput(() => z.strictObject({ path: pagePath, from: commitId, to: commitId.optional() }));
export const readPageVersionInput = lazyInput(() => readPageInput.unwrap().extend({ version: commitId.optional().describe("A commit id from quire_page_history: read the page as it was then") }));
export const restorePageToolInput = lazyInput(() => z
  .strictObject({
    path: pagePath.optional(),
    commit: commitId.optional(),
    last_known_hash: hash.optional(),
    trash_id: pageId.optional(),
  })
  .refine((v) => v.trash_id !== undefined || (v.path !== undefined && v.commit !== undefined && v.last_known_hash !== undefined), {
    message: "give path, commit and last_known_hash (a version), or trash_id (a deleted page)",
    path: ["trash_id"],
  }));
export const listTrashToolInput = lazyInput(() => z.strictObject({}));

// ---- outputs (the OpenAPI document and the tools' outputSchema) ----

const versionEntryOutput = lazyOutput(() => z.object({
  commit: z.string(),
  page_id: z.string().nullable(),
  path: z.string(),
  old_path: z.string().nullable().describe("Set when this version moved the page"),
  change: z.enum(["added", "modified", "deleted", "renamed"]),
  author: z.object({ name: z.string(), email: z.string(), user_id: z.string().nullable() }),
  at: z.string().describe("ISO time of the commit"),
  message: z.string(),
  channel: z.enum(CHANNELS as [string, ...string[]]),
  added: z.number().int(),
  removed: z.number().int(),
  on_remote: z
    .boolean()
    .nullable()
    .describe("False: the git remote does not hold this version (not pushed yet, or removed by a force-push); null: no remote to ask"),
}));
export const historyOutput = lazyOutput(() => z.object({
  items: z.array(versionEntryOutput),
  next_cursor: z.string().nullable(),
  indexing: z.boolean().describe("True while the history is still being read from git: older versions may be missing"),
  git: z.boolean().describe("False when the workspace has no git history (nothing to list)"),
}));
export const versionContentOutput = lazyOutput(() => z.object({
  commit: z.string(),
  path: z.string(),
  content: z.string().describe("The whole file at that commit, frontmatter included"),
  valid_utf8: z.boolean(),
  frontmatter_valid: z.boolean(),
  html: z.string().optional().describe("The body rendered by the published site's renderer, sanitized (with ?html=true)"),
}));
export const diffOutput = lazyOutput(() => z.object({
  from: z.string(),
  to: z.string().describe("A commit id, or `current` for the file as it is now"),
  unified: z.string(),
  frontmatter_changes: z.array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() })),
  added: z.number().int(),
  removed: z.number().int(),
  words: z
    .array(z.object({ old_line: z.number().int(), new_line: z.number().int(), parts: z.array(z.object({ kind: z.enum(["same", "added", "removed"]), text: z.string() })) }))
    .optional()
    .describe("Word-level highlights of lines changed one for one (with ?words=true)"),
  rendered: z
    .array(z.object({ kind: z.enum(["same", "added", "removed"]), html: z.string() }))
    .optional()
    .describe("The newer version's blocks rendered as the site renders them, the older version's removed blocks where they stood (with ?rendered=true)"),
}));
const trashEntryOutput = lazyOutput(() => z.object({
  trash_id: z.string(),
  page_id: z.string(),
  path: z.string(),
  title: z.string(),
  deleted_at: z.string(),
  deleted_by: z.string().nullable(),
  source: z.enum(["ledger", "git"]).describe("ledger: deleted in Quire; git: removed by a push or on disk"),
}));
export const trashOutput = lazyOutput(() => z.object({ items: z.array(trashEntryOutput) }));
const changeEntryOutput = lazyOutput(() => z.object({
  commit: z.string(),
  page_id: z.string().nullable(),
  path: z.string(),
  old_path: z.string().nullable(),
  change: z.enum(["created", "edited", "moved", "deleted"]),
  author: z.object({ name: z.string(), email: z.string(), user_id: z.string().nullable() }),
  at: z.string(),
  channel: z.string(),
  diff: z.string().nullable().describe("The API path of this change's own diff: the page's version before it → this one (null for a creation or deletion)"),
}));
export const blameOutput = lazyOutput(() => z.object({
  path: z.string(),
  content: z.string().describe("The file the ranges describe (frontmatter included)"),
  ranges: z
    .array(z.object({ start: z.number().int(), count: z.number().int(), commit: z.string().nullable().describe("null: not committed yet") }))
    .describe("Runs of lines of the current file (1-based, frontmatter included), each last written by one version"),
  commits: z.array(versionEntryOutput).describe("The versions the ranges name"),
  truncated: z.boolean().describe("True when the page has more versions than were read: its oldest lines carry the oldest version read"),
}));
export const changesOutput = lazyOutput(() => z.object({ items: z.array(changeEntryOutput), next_cursor: z.string().nullable() }));

export type VersionEntry = z.infer<typeof versionEntryOutput>;
