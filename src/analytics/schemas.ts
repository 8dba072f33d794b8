import { z } from "zod";
import { lazyOutput } from "../core/schemas.ts";
import { closedObject, lazyInput } from "../core/validate.ts";

/** The API takes any whole number of days up to this (the analytics screen offers 7, 30 and 90). */
const MAX_ANALYTICS_DAYS = 90;

/** Query of GET /api/v1/workspaces/:id/analytics/{pages,searches,overview}. */
export const analyticsQuery = lazyInput(() => z.object({
  days: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number of days")
    .min(1, `must be between 1 and ${MAX_ANALYTICS_DAYS}`)
    .max(MAX_ANALYTICS_DAYS, `must be between 1 and ${MAX_ANALYTICS_DAYS}`)
    .default(30),
  limit: z.coerce.number({ error: "must be a number" }).int().min(1, "must be between 1 and 100").max(100, "must be between 1 and 100").default(20),
  source: z.enum(["app", "site"]).optional(),
}));
export type AnalyticsQuery = z.infer<typeof analyticsQuery>;

/**
 * POST /api/analytics/consent: a visitor of a published site says yes or no to being counted as a
 * visitor. `workspace` is the site's workspace id or slug.
 */
export const consentInput = lazyInput(() => closedObject({
  workspace: z.string().min(1).max(64),
  granted: z.boolean({ error: "must be true or false" }),
}));

// ---- outputs: what the analytics endpoints answer (the OpenAPI document is generated from these) ----

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe("A UTC day, YYYY-MM-DD");
const count = z.number().int().min(0);
/** Every report names its window: the workspace, the number of days and the first day counted. */
const window = { workspace_id: z.string(), days: z.number().int(), since: day };
const pageViews = z.object({ path: z.string(), views: count });
const queryCount = z.object({ query: z.string(), searches: count });
const searchCounts = z.object({ query: z.string(), searches: count, no_results: count.describe("How many of those searches found nothing") });

/** POST /api/analytics/consent */
export const consentOutput = lazyOutput(() => z.object({ workspace_id: z.string(), consent: z.enum(["granted", "denied"]) }));

/** GET …/analytics/pages: the most viewed pages and referring hosts. */
export const analyticsPagesOutput = lazyOutput(() => z.object({
  ...window,
  total_views: count,
  items: z.array(pageViews),
  referrers: z.array(z.object({ host: z.string(), views: count })),
}));

/** GET …/analytics/searches: the most frequent queries, and the queries that found nothing. */
export const analyticsSearchesOutput = lazyOutput(() => z.object({
  ...window,
  source: z.enum(["app", "site"]).nullable().describe("The source asked for; null: both"),
  searches: count,
  no_result_searches: count,
  items: z.array(searchCounts),
  no_results: z.array(queryCount).describe("Queries that found nothing, with how often"),
}));

/** GET …/analytics/overview: totals, a day-by-day series and short top lists. */
export const analyticsOverviewOutput = lazyOutput(() => z.object({
  ...window,
  page_views: count,
  visitors: count.describe("Consenting visitors"),
  searches: count,
  no_result_searches: count,
  consents: z.object({ granted: count, denied: count }),
  daily: z.array(z.object({ day, page_views: count, searches: count, visitors: count })),
  top_pages: z.array(pageViews),
  top_queries: z.array(searchCounts),
  no_result_queries: z.array(queryCount),
}));
