import { z } from "zod";
import { closedObject } from "../core/validate.ts";

/** Windows the analytics screen offers; the API takes any whole number of days up to the longest. */
export const ANALYTICS_WINDOWS = [7, 30, 90] as const;
export const MAX_ANALYTICS_DAYS = 90;

/** Query of GET /api/v1/workspaces/:id/analytics/{pages,searches,overview}. */
export const analyticsQuery = z.object({
  days: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number of days")
    .min(1, `must be between 1 and ${MAX_ANALYTICS_DAYS}`)
    .max(MAX_ANALYTICS_DAYS, `must be between 1 and ${MAX_ANALYTICS_DAYS}`)
    .default(30),
  limit: z.coerce.number({ error: "must be a number" }).int().min(1, "must be between 1 and 100").max(100, "must be between 1 and 100").default(20),
  source: z.enum(["app", "site"]).optional(),
});
export type AnalyticsQuery = z.infer<typeof analyticsQuery>;

/**
 * POST /api/analytics/consent: a visitor of a published site says yes or no to being counted as a
 * visitor. `workspace` is the site's workspace id or slug.
 */
export const consentInput = closedObject({
  workspace: z.string().min(1).max(64),
  granted: z.boolean({ error: "must be true or false" }),
});
