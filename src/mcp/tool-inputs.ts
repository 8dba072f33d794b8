import { z } from "zod";
import { listQuery } from "../access/schemas.ts";
import { listCommentsQuery, createCommentInput } from "../collab/comment-schemas.ts";
import { activityQuery } from "../collab/schemas.ts";
import { moveAliasInput, pagePath } from "../content/schemas.ts";
import { resolveConflictInput } from "../git/schemas.ts";
import { exportInput } from "../publish/schemas.ts";
import { searchQuery } from "../search/schemas.ts";
import { setAccessInput } from "../access/restrictions/schemas.ts";

/**
 * The inputs of the MCP tools whose operation the REST API also has, derived from the schemas its
 * routes and services validate with: every field not named below is the API's own. The tool
 * contract (docs/architecture.md §12) differs from the API in these ways only, each written here once:
 * - values are JSON, not query-string text: a list's `limit` is a JSON integer, a flag a boolean;
 * - a page is named `path`, as an agent writes it (a leading `/` and a missing `.md` are fine:
 *   src/content/paths.ts `agentPagePath` turns it into the stored path);
 * - pages of results have the contract's sizes (AGENT_PAGE, SEARCH_PAGE), within the API's bounds.
 * Tools whose operation only agents have (read, write, update a page; the manifest) take their
 * service's schema as it is, from src/content/schemas.ts. The optional `workspace` of every tool
 * acting in one workspace is added by src/mcp/server.ts.
 */

/** A list's page for an agent: smaller than the API's 50 by default (results are budgeted in tokens). */
const AGENT_PAGE = { default: 25, max: 100 };
/** docs/architecture.md §12: `quire_search` answers 10 hits by default, at most 50. */
const SEARCH_PAGE = { default: 10, max: 50 };
/** A `quire_list_workspaces` page: the API's default, at most AGENT_PAGE's maximum. */
const WORKSPACE_PAGE = { max: AGENT_PAGE.max };

/**
 * An API list's `limit` (text coerced to a number, with its bounds and default) as a tool takes
 * it: a JSON integer, with the API's lower bound and the page size given. A tool may narrow what
 * the API accepts, never widen it: the service parses the arguments again with its own schema.
 */
function agentLimit(apiLimit: z.ZodDefault<z.ZodNumber | z.ZodCoercedNumber>, page: { default?: number; max?: number }) {
  const api = apiLimit.unwrap();
  const min = api.minValue ?? 1;
  const max = page.max ?? api.maxValue ?? Number.MAX_SAFE_INTEGER;
  const fallback = page.default ?? (apiLimit.def.defaultValue as number);
  if (max > (api.maxValue ?? Infinity) || fallback < min || fallback > max) {
    throw new Error(`a tool's page (default ${fallback}, max ${max}) must lie within the API's limit (${min}..${api.maxValue})`);
  }
  const between = `must be between ${min} and ${max}`;
  return z.number({ error: "must be a number" }).int("must be an integer").min(min, between).max(max, between).default(fallback);
}

/** A field's replacement: a schema under the same name, `[name, schema]` under a new one, or null to drop it. */
type Change = z.ZodType | readonly [string, z.ZodType] | null;
type Changes<S extends z.ZodRawShape> = { [K in keyof S]?: Change };
type Reshaped<S extends z.ZodRawShape, C> = {
  [K in keyof S as K extends keyof C
    ? C[K] extends null
      ? never
      : C[K] extends readonly [infer N extends string, z.ZodType]
        ? N
        : K
    : K]: K extends keyof C ? (C[K] extends readonly [string, infer T] ? T : C[K]) : S[K];
};

/**
 * An API input's fields, in their order, closed to unknown arguments, with `changes` applied. A
 * schema written as a closed object with its own unknown-key check (`closedObject`, a pipe, with
 * any refinement) lends its object's fields; its service still parses the whole schema.
 */
function reshape<S extends z.ZodRawShape, const C extends Changes<S>>(
  lazyApi: z.ZodLazy<z.ZodObject<S, z.core.$ZodObjectConfig> | z.ZodPipe<z.ZodObject<S, z.core.$ZodObjectConfig>, z.ZodType>>,
  changes: C,
): z.ZodObject<Reshaped<S, C> extends infer R extends z.ZodRawShape ? R : never, z.core.$strict> {
  const api = lazyApi.unwrap();
  const fields: z.ZodRawShape = api instanceof z.ZodPipe ? api.in.shape : api.shape;
  const shape: Record<string, z.core.$ZodType> = {};
  for (const [key, field] of Object.entries(fields)) {
    const change = (changes as Record<string, Change | undefined>)[key];
    if (change === null) continue;
    if (change === undefined) shape[key] = field;
    else if (change instanceof z.ZodType) shape[key] = change;
    else shape[change[0]] = change[1];
  }
  return z.strictObject(shape) as never;
}

/** `quire_search`: GET …/search's `q` named `query`. */
export const searchArgs = reshape(searchQuery, { q: ["query", searchQuery.unwrap().shape.q], limit: agentLimit(searchQuery.unwrap().shape.limit, SEARCH_PAGE) });

/** `quire_list_workspaces`: GET /api/v1/workspaces's query. */
export const listWorkspacesArgs = reshape(listQuery, { limit: agentLimit(listQuery.unwrap().shape.limit, WORKSPACE_PAGE) });

/** `quire_get_activity`: GET …/activity's query. */
export const activityArgs = reshape(activityQuery, { limit: agentLimit(activityQuery.unwrap().shape.limit, AGENT_PAGE) });

/** `quire_list_comments`: GET …/comments's query; `path` filters by page, as `page` does there. */
export const listCommentsArgs = reshape(listCommentsQuery, {
  // Optional like `page`: an agent's path, without pagePath's "is required".
  page: ["path", z.string().max(520, "must be at most 512 characters").optional()],
  resolved: z.boolean().optional(),
  limit: agentLimit(listCommentsQuery.unwrap().shape.limit, AGENT_PAGE),
});

/** `quire_add_comment`: POST …/comments's body; the page, named `path`, is required (a reply names it too). */
export const addCommentArgs = reshape(createCommentInput, { page_path: ["path", pagePath] });

/** `quire_move_page`: the body of POST …/content/:workspace/move (the page as `path`, not `old_path`). */
export const movePageArgs = reshape(moveAliasInput, { path: pagePath, old_path: null, new_path: pagePath });

/** `quire_resolve_sync_conflict`: the conflict (the route's `:conflict_id`), then the resolve body. */
export const resolveConflictArgs = z.strictObject({
  conflict_id: z.string({ error: "is required" }).min(1, "must not be empty").max(200, "must be at most 200 characters"),
  ...resolveConflictInput.unwrap().in.shape,
});

/** `quire_export` over stdio: the export options, and a file to write the ZIP to instead of a download URL. */
export const stdioExportArgs = exportInput.unwrap().safeExtend({
  output: z.string().min(1, "must not be empty").max(4096, "must be at most 4096 characters").optional(),
});

/** `quire_set_access`: the body of PUT …/access, as it is. */
export const setAccessArgs = reshape(setAccessInput, {});
