/**
 * The analytics reports: one grouped pass over a window's daily rows in analytics.db per list.
 * Plain functions over the database; permissions, plans and reuse are the Analytics service's.
 */
import type { Db } from "../db/database.ts";
import type { AnalyticsQuery } from "./schemas.ts";

const DAY_MS = 86_400_000;

export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

interface SearchRow {
  query: string;
  searches: number;
  no_results: number;
}

const sum = <K extends string>(rows: Record<K, number>[], key: K): number => rows.reduce((n, r) => n + r[key], 0);

/** The searches report from the grouped rows (already sorted by searches): top queries, empty ones, totals. */
function searchReport(rows: SearchRow[], limit: number) {
  const noResults = rows
    .filter((r) => r.no_results > 0)
    .sort((a, b) => b.no_results - a.no_results || (a.query < b.query ? -1 : a.query > b.query ? 1 : 0))
    .slice(0, limit)
    .map((r) => ({ query: r.query, searches: r.no_results }));
  return { searches: sum(rows, "searches"), no_result_searches: sum(rows, "no_results"), items: rows.slice(0, limit), no_results: noResults };
}


/** Views per path over the window, most viewed first. */
function pageRows(db: Db, workspaceId: string, since: string): { path: string; views: number }[] {
  return db
    .query<{ path: string; views: number }, [string, string]>(
      "SELECT path, SUM(views) AS views FROM page_views WHERE workspace_id = ? AND day >= ? GROUP BY path ORDER BY views DESC, path",
    )
    .all(workspaceId, since);
}

/** Searches and empty results per query over the window (one source or both), most searched first. */
function searchRows(db: Db, workspaceId: string, since: string, source: string | null): SearchRow[] {
  const select = "SELECT query, SUM(searches) AS searches, SUM(no_results) AS no_results FROM searches WHERE workspace_id = ? AND day >= ?";
  const order = "GROUP BY query ORDER BY searches DESC, query";
  return source === null
    ? db.query<SearchRow, [string, string]>(`${select} ${order}`).all(workspaceId, since)
    : db.query<SearchRow, [string, string, string]>(`${select} AND source = ? ${order}`).all(workspaceId, since, source);
}

/** Consenting visitors per day: folded counts of past days plus today's hashes. */
function visitorsByDay(db: Db, workspaceId: string, since: string): Map<string, number> {
  const rows = db
    .query<{ day: string; n: number }, [string, string, string, string]>(
      `SELECT day, visitors AS n FROM visitor_days WHERE workspace_id = ? AND day >= ?
       UNION ALL SELECT day, COUNT(*) FROM visitors WHERE workspace_id = ? AND day >= ? GROUP BY day`,
    )
    .all(workspaceId, since, workspaceId, since);
  const out = new Map<string, number>();
  for (const r of rows) out.set(r.day, (out.get(r.day) ?? 0) + r.n);
  return out;
}

/** GET …/analytics/pages: the most viewed pages and referring hosts. */
export function pagesReport(db: Db, workspaceId: string, q: AnalyticsQuery, since: string) {
  const pages = pageRows(db, workspaceId, since);
  const referrers = db
    .query<{ host: string; views: number }, [string, string, number]>(
      `SELECT host, SUM(views) AS views FROM referrers WHERE workspace_id = ? AND day >= ?
       GROUP BY host ORDER BY views DESC, host LIMIT ?`,
    )
    .all(workspaceId, since, q.limit);
  return { workspace_id: workspaceId, days: q.days, since, total_views: sum(pages, "views"), items: pages.slice(0, q.limit), referrers };
}

/** GET …/analytics/searches: the most frequent queries and the queries that found nothing. */
export function searchesReport(db: Db, workspaceId: string, q: AnalyticsQuery, since: string) {
  const source = q.source ?? null;
  return { workspace_id: workspaceId, days: q.days, since, source, ...searchReport(searchRows(db, workspaceId, since, source), q.limit) };
}

/** GET …/analytics/overview: totals, a day-by-day series ending `nowMs`, and short top lists. */
export function overviewReport(db: Db, workspaceId: string, q: AnalyticsQuery, since: string, nowMs: number) {
  const perDay = (table: "page_views" | "searches", column: "views" | "searches") =>
    new Map(
      db
        .query<{ day: string; n: number }, [string, string]>(`SELECT day, SUM(${column}) AS n FROM ${table} WHERE workspace_id = ? AND day >= ? GROUP BY day`)
        .all(workspaceId, since)
        .map((r) => [r.day, r.n]),
    );
  const v = perDay("page_views", "views");
  const s = perDay("searches", "searches");
  const visitors = visitorsByDay(db, workspaceId, since);
  const consents = db
    .query<{ granted: number | null; denied: number | null }, [string, string]>(
      "SELECT SUM(granted) AS granted, SUM(denied) AS denied FROM consents WHERE workspace_id = ? AND day >= ?",
    )
    .get(workspaceId, since)!;
  const daily: { day: string; page_views: number; searches: number; visitors: number }[] = [];
  for (let i = q.days - 1; i >= 0; i--) {
    const day = dayOf(nowMs - i * DAY_MS);
    daily.push({ day, page_views: v.get(day) ?? 0, searches: s.get(day) ?? 0, visitors: visitors.get(day) ?? 0 });
  }
  const top = 5;
  const pages = pageRows(db, workspaceId, since);
  const found = searchReport(searchRows(db, workspaceId, since, null), top);
  return {
    workspace_id: workspaceId,
    days: q.days,
    since,
    page_views: sum(pages, "views"),
    visitors: [...visitors.values()].reduce((a, b) => a + b, 0),
    searches: found.searches,
    no_result_searches: found.no_result_searches,
    consents: { granted: consents.granted ?? 0, denied: consents.denied ?? 0 },
    daily,
    top_pages: pages.slice(0, top),
    top_queries: found.items,
    no_result_queries: found.no_results,
  };
}
