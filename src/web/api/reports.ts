/**
 * What the workspace screens read about a workspace: activity (the workspace's or one page's), search,
 * the quality report and the analytics reports — each a typed call, answered in the API's own types.
 */
import { get } from "./client.ts";
import type * as Api from "./openapi-types.ts";
import { workspaceUrls } from "./workspaces.ts";

export type Activity = Api.Activity;
export type SearchHit = Api.SearchResults["items"][number];
export type QualityReport = Api.QualityReport;

/** A page of the activity feed: the workspace's (filtered by `action`), or one page's when `page` is given. */
export function listActivity(workspaceId: string, opts: { page?: string | null; action?: string; cursor?: string | null }) {
  const urls = workspaceUrls(workspaceId);
  const base = opts.page ? urls.pageActivity(opts.page) : urls.activity(opts.action || undefined);
  return get<Api.ActivityList>(`${base}${opts.cursor ? `&cursor=${encodeURIComponent(opts.cursor)}` : ""}`);
}

export const searchWorkspace = (workspaceId: string, query: string, signal?: AbortSignal) => get<Api.SearchResults>(workspaceUrls(workspaceId).search(query), signal);

export const qualityReport = (workspaceId: string) => get<Api.QualityReport>(workspaceUrls(workspaceId).quality);

/** The three analytics reports over the last `days` days. */
export function analyticsReports(workspaceId: string, days: number, signal?: AbortSignal) {
  const base = workspaceUrls(workspaceId).analytics;
  return Promise.all([
    get<Api.AnalyticsOverview>(`${base}/overview?days=${days}`, signal),
    get<Api.AnalyticsPages>(`${base}/pages?days=${days}&limit=20`, signal),
    get<Api.AnalyticsSearches>(`${base}/searches?days=${days}&limit=20`, signal),
  ]).then(([overview, pages, searches]) => ({ overview, pages, searches }));
}
