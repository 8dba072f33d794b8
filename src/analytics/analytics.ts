/**
 * Analytics: page views of published sites and search queries (the app's and the sites'), as
 * daily aggregates in analytics.db (see database.ts and docs/decisions/analytics.md). What is
 * taken from a request is in input.ts, the report queries in reports.ts.
 *
 * Writes cost the caller a Map update: events are summed in memory and written in one
 * transaction every second (or at once when many distinct keys pile up), so a page view or a
 * search never waits for a disk write. Reads write what is pending first.
 *
 * Storage is bounded whatever arrives: per workspace and day at most MAX_PATHS_PER_DAY paths,
 * MAX_QUERIES_PER_DAY queries per source, MAX_REFERRERS_PER_DAY referrer hosts and
 * MAX_VISITORS_PER_DAY visitor hashes; what lies past a cap is counted in one '(other)' row. Rows
 * older than RETENTION_DAYS are deleted, so the file holds at most RETENTION_DAYS days of capped rows.
 */
import { randomBytes, createHmac } from "node:crypto";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { StorageHealth } from "../core/storage-errors.ts";
import { NotFoundError } from "../core/errors.ts";
import { parseInput } from "../core/validate.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../workspaces/workspace-records.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";
import type { Plans } from "../billing/plans.ts";
import type { z } from "zod";
import {
  analyticsQuery,
  consentInput,
  type AnalyticsQuery,
  type analyticsOverviewOutput,
  type analyticsPagesOutput,
  type analyticsSearchesOutput,
  type consentOutput,
} from "./schemas.ts";
import { dayOf, overviewReport, pagesReport, searchesReport } from "./reports.ts";
import { consentOf, isAutomated, normalizePath, normalizeQuery, referrerHost, CONSENT_COOKIE } from "./input.ts";


export const MAX_PATHS_PER_DAY = 1000;
export const MAX_QUERIES_PER_DAY = 1000;
export const MAX_REFERRERS_PER_DAY = 100;
const MAX_VISITORS_PER_DAY = 10_000;
export const RETENTION_DAYS = 90;
export const OTHER = "(other)";

const FLUSH_MS = 1000;
/** While new figures keep arriving, a report is reused for this long before it is computed again. */
const REPORT_REUSE_MS = 10_000;
const EXPENSIVE_REPORT_MS = 50;
const capOf = (table: Pending["table"]): number =>
  table === "page_views" ? MAX_PATHS_PER_DAY : table === "searches" ? MAX_QUERIES_PER_DAY : table === "referrers" ? MAX_REFERRERS_PER_DAY : MAX_VISITORS_PER_DAY;
/** Distinct keys waiting in memory before they are written at once (bounds memory under floods). */
const MAX_PENDING = 2000;
const DAY_MS = 86_400_000;

interface PageViewInput {
  workspaceId: string;
  /** The page path inside the site (query string and fragment are dropped). */
  path: string;
  /** The Referer header as received; only its host is kept, and only when it is another site. */
  referrer?: string | null;
  /** The visitor consented (the consent cookie says so, and the browser sends no opt-out signal). */
  consent?: boolean;
  /** Used only with consent, and only to make the day's salted visitor hash; never stored. */
  client?: { ip: string; userAgent: string };
}

interface SearchInput {
  workspaceId: string;
  query: string;
  results: number;
  source: "app" | "site";
}

interface Pending {
  table: "page_views" | "referrers" | "searches" | "visitors";
  workspaceId: string;
  day: string;
  key: string;
  source?: "app" | "site";
  count: number;
  noResults: number;
}


export class Analytics {
  private readonly pending = new Map<string, Pending>();
  /** Keys stored per (table, workspace, day[, source]), today's only: what the caps count. */
  private readonly kept = new Map<string, Set<string>>();
  /** Reports computed lately, and a counter per workspace that each write of its figures moves on. */
  private readonly reports = new Map<string, { at: number; version: number; costMs: number; value: unknown }>();
  private readonly versions = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private purgeTimer: ReturnType<typeof setInterval> | undefined;
  private salt = { day: "", key: Buffer.alloc(0) };
  /** The last page view's pending row (valid until the next flush): repeated views of one page skip the keys. */
  private lastView: { workspaceId: string; day: string; path: string; row: Pending; flushes: number } | null = null;
  private flushes = 0;
  /** The UTC day of the last event and its bounds: a page view costs a comparison, not a date format. */
  private day = { from: 0, to: 0, text: "" };
  private readonly ownHost: string | null;

  constructor(
    private readonly deps: {
      db: Db;
      workspaces: WorkspaceRecords;
      permissions: Permissions;
      plans: Plans;
      log: Logger;
      baseUrl: string;
      now?: () => number;
      /** The data directory's storage: a flush a full disk refused is its rate-limited warning, not an error. */
      storage?: StorageHealth;
    },
  ) {
    try {
      this.ownHost = new URL(deps.baseUrl).hostname.toLowerCase();
    } catch {
      this.ownHost = null;
    }
  }

  get db(): Db {
    return this.deps.db;
  }

  private now(): number {
    return this.deps.now ? this.deps.now() : Date.now();
  }

  start(): void {
    if (this.timer) return;
    this.runPurge();
    this.timer = setInterval(() => this.flushSafely(), FLUSH_MS);
    this.timer.unref?.();
    this.purgeTimer = setInterval(() => this.runPurge(), 3600_000);
    this.purgeTimer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    this.timer = this.purgeTimer = undefined;
    this.flushSafely();
  }

  private today(now: number): string {
    const d = this.day;
    if (now >= d.from && now < d.to) return d.text;
    const from = Math.floor(now / DAY_MS) * DAY_MS;
    this.day = { from, to: from + DAY_MS, text: dayOf(now) };
    return this.day.text;
  }

  /** One view of a published page. Never throws: analytics must not break the page it counts. */
  recordPageView(input: PageViewInput): void {
    try {
      const day = this.today(this.now());
      const path = normalizePath(input.path);
      if (!this.viewedAgain(input.workspaceId, day, path)) this.add({ table: "page_views", workspaceId: input.workspaceId, day, key: path, count: 1, noResults: 0 });
      const host = referrerHost(input.referrer, this.ownHost);
      if (host) this.add({ table: "referrers", workspaceId: input.workspaceId, day, key: host, count: 1, noResults: 0 });
      if (input.consent && input.client) {
        const visitor = this.visitorHash(input.workspaceId, input.client, day);
        this.add({ table: "visitors", workspaceId: input.workspaceId, day, key: visitor, count: 1, noResults: 0 });
      }
    } catch (error) {
      this.deps.log.warn("analytics: page view not recorded", { error: String(error) });
    }
  }

  /** One search (app or site) and how many results it found. Never throws. */
  recordSearch(input: SearchInput): void {
    try {
      const query = normalizeQuery(input.query);
      if (query === "") return;
      this.add({
        table: "searches",
        workspaceId: input.workspaceId,
        day: this.today(this.now()),
        key: query,
        source: input.source,
        count: 1,
        noResults: input.results === 0 ? 1 : 0,
      });
    } catch (error) {
      this.deps.log.warn("analytics: search not recorded", { error: String(error) });
    }
  }

  /**
   * A site visitor's answer to the consent question (public). Only the day's count of answers is
   * stored; the answer itself lives in the visitor's own cookie, which the route sets.
   * `onlyWorkspaceId`: asked on a custom domain, whose site is the only one it may answer for.
   */
  consent(body: unknown, onlyWorkspaceId?: string): { workspace_id: string; workspace_slug: string; consent: "granted" | "denied" } {
    const input = parseInput(consentInput, body);
    const ws = this.publishedWorkspace(input.workspace);
    if (onlyWorkspaceId !== undefined && ws.id !== onlyWorkspaceId) throw new NotFoundError("No published site by that name");
    const day = dayOf(this.now());
    this.deps.db
      .query(
        `INSERT INTO consents (workspace_id, day, granted, denied) VALUES (?, ?, ?, ?)
         ON CONFLICT (workspace_id, day) DO UPDATE SET granted = granted + excluded.granted, denied = denied + excluded.denied`,
      )
      .run(ws.id, day, input.granted ? 1 : 0, input.granted ? 0 : 1);
    this.versions.set(ws.id, (this.versions.get(ws.id) ?? 0) + 1);
    return { workspace_id: ws.id, workspace_slug: ws.slug, consent: input.granted ? "granted" : "denied" };
  }

  /** GET …/analytics/pages: the most viewed pages and referrers over the window. */
  pages(principal: Principal, ref: string, query: unknown) {
    const { workspace, q, since } = this.open(principal, ref, query);
    return this.cached(`pages|${workspace.id}|${q.days}|${q.limit}`, workspace.id, () => pagesReport(this.deps.db, workspace.id, q, since));
  }

  /** GET …/analytics/searches: the most frequent queries and the queries that found nothing. */
  searches(principal: Principal, ref: string, query: unknown) {
    const { workspace, q, since } = this.open(principal, ref, query);
    return this.cached(`searches|${workspace.id}|${q.days}|${q.limit}|${q.source ?? ""}`, workspace.id, () => searchesReport(this.deps.db, workspace.id, q, since));
  }

  /** GET …/analytics/overview: the dashboard's totals, day by day series and short top lists. */
  overview(principal: Principal, ref: string, query: unknown) {
    const { workspace, q, since } = this.open(principal, ref, query);
    return this.cached(`overview|${workspace.id}|${q.days}`, workspace.id, () => overviewReport(this.deps.db, workspace.id, q, since, this.now()));
  }

  /**
   * A report is computed again when new figures were written for the workspace since; one that
   * took long to compute (a big site's 90 days) at most once per REPORT_REUSE_MS while figures keep
   * arriving, so someone reloading a busy site's dashboard in a loop costs one computation per
   * interval, not one per request.
   */
  private cached<T>(key: string, workspaceId: string, compute: () => T): T {
    const now = this.now();
    const hit = this.reports.get(key) as { at: number; version: number; costMs: number; value: T } | undefined;
    const version = this.versions.get(workspaceId) ?? 0;
    if (hit && (hit.version === version || (hit.costMs >= EXPENSIVE_REPORT_MS && now - hit.at < REPORT_REUSE_MS))) return hit.value;
    if (this.reports.size >= 500) this.reports.clear();
    const started = performance.now();
    const value = compute();
    this.reports.set(key, { at: now, version, costMs: performance.now() - started, value });
    return value;
  }

  /** Drops every computed report (benchmarks measure the computation itself). */
  forgetReports(): void {
    this.reports.clear();
  }

  /** Writes every pending aggregate in one transaction. */
  flush(): void {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending.clear();
    this.flushes++;
    for (const p of batch) this.versions.set(p.workspaceId, (this.versions.get(p.workspaceId) ?? 0) + 1);
    if (this.versions.size > 10_000) this.versions.clear();
    const db = this.deps.db;
    db.transaction(() => {
      for (const p of batch) this.write(p);
    })();
  }

  /**
   * Deletes rows past the retention window and folds past days' visitor hashes into one count per
   * day (the hashes of a finished day are no use: their salt is gone).
   */
  purge(nowMs = this.now()): { deleted: number } {
    this.flush();
    const db = this.deps.db;
    const cutoff = dayOf(nowMs - (RETENTION_DAYS - 1) * DAY_MS);
    const today = dayOf(nowMs);
    let deleted = 0;
    db.transaction(() => {
      db.query(
        `INSERT INTO visitor_days (workspace_id, day, visitors)
         SELECT workspace_id, day, COUNT(*) FROM visitors WHERE day < ? GROUP BY workspace_id, day
         ON CONFLICT (workspace_id, day) DO UPDATE SET visitors = visitor_days.visitors + excluded.visitors`,
      ).run(today);
      db.query("DELETE FROM visitors WHERE day < ?").run(today);
      for (const table of ["page_views", "referrers", "searches", "visitor_days", "consents", "visitors"]) {
        deleted += db.query(`DELETE FROM ${table} WHERE day < ?`).run(cutoff).changes;
      }
    })();
    for (const scope of this.kept.keys()) if (!scope.includes(`|${today}|`)) this.kept.delete(scope);
    return { deleted };
  }

  /** Everything analytics holds about a workspace goes with it. */
  forgetWorkspace(workspaceId: string): void {
    this.flush();
    const db = this.deps.db;
    db.transaction(() => {
      for (const table of ["page_views", "referrers", "searches", "visitors", "visitor_days", "consents"]) {
        db.query(`DELETE FROM ${table} WHERE workspace_id = ?`).run(workspaceId);
      }
    })();
    for (const scope of this.kept.keys()) if (scope.includes(`|${workspaceId}|`)) this.kept.delete(scope);
    this.versions.set(workspaceId, (this.versions.get(workspaceId) ?? 0) + 1);
  }

  /**
   * A popular page viewed again before the next flush: its pending row is counted in place, before
   * any event is built (a page view of a busy site allocates nothing). False: not the last page.
   */
  private viewedAgain(workspaceId: string, day: string, path: string): boolean {
    const last = this.lastView;
    if (last === null || last.flushes !== this.flushes || last.workspaceId !== workspaceId || last.day !== day || last.path !== path) return false;
    last.row.count++;
    return true;
  }

  private add(p: Pending): void {
    const path = p.key;
    const scope = `${p.table}|${p.workspaceId}|${p.day}|${p.source ?? ""}`;
    const kept = this.keysOf(scope, p);
    if (!kept.has(p.key)) {
      if (kept.size < capOf(p.table)) kept.add(p.key);
      else if (p.table === "visitors") return; // past the cap the day's visitor figure is a lower bound
      else p.key = OTHER; // counted, under one row for everything past the cap
    }
    const key = `${scope}|${p.key}`;
    const known = this.pending.get(key);
    if (known) {
      known.count += p.count;
      known.noResults += p.noResults;
      if (p.table === "page_views") this.lastView = { workspaceId: p.workspaceId, day: p.day, path, row: known, flushes: this.flushes };
      return;
    }
    this.pending.set(key, p);
    if (p.table === "page_views") this.lastView = { workspaceId: p.workspaceId, day: p.day, path, row: p, flushes: this.flushes };
    if (this.pending.size >= MAX_PENDING) this.flushSafely();
  }

  private write(p: Pending): void {
    const db = this.deps.db;
    if (p.table === "visitors") {
      db.query("INSERT OR IGNORE INTO visitors (workspace_id, day, visitor) VALUES (?, ?, ?)").run(p.workspaceId, p.day, p.key);
    } else if (p.table === "searches") {
      db.query(
        `INSERT INTO searches (workspace_id, day, source, query, searches, no_results) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (workspace_id, day, source, query) DO UPDATE SET searches = searches + excluded.searches, no_results = no_results + excluded.no_results`,
      ).run(p.workspaceId, p.day, p.source!, p.key, p.count, p.noResults);
    } else {
      const column = p.table === "page_views" ? "path" : "host";
      db.query(
        `INSERT INTO ${p.table} (workspace_id, day, ${column}, views) VALUES (?, ?, ?, ?)
         ON CONFLICT (workspace_id, day, ${column}) DO UPDATE SET views = views + excluded.views`,
      ).run(p.workspaceId, p.day, p.key, p.count);
    }
  }

  /**
   * The keys stored (or pending) for a table, workspace, day and source: read once from the file,
   * then kept in memory, at most the cap per scope (and only today's scopes are kept: purge drops the rest).
   */
  private keysOf(scope: string, p: Pending): Set<string> {
    let keys = this.kept.get(scope);
    if (keys) return keys;
    const db = this.deps.db;
    let rows: { k: string }[];
    if (p.table === "searches") {
      rows = db.query<{ k: string }, [string, string, string, string]>("SELECT query AS k FROM searches WHERE workspace_id = ? AND day = ? AND source = ? AND query <> ?").all(p.workspaceId, p.day, p.source!, OTHER);
    } else if (p.table === "visitors") {
      rows = db.query<{ k: string }, [string, string]>("SELECT visitor AS k FROM visitors WHERE workspace_id = ? AND day = ?").all(p.workspaceId, p.day);
    } else {
      const column = p.table === "page_views" ? "path" : "host";
      rows = db.query<{ k: string }, [string, string, string]>(`SELECT ${column} AS k FROM ${p.table} WHERE workspace_id = ? AND day = ? AND ${column} <> ?`).all(p.workspaceId, p.day, OTHER);
    }
    keys = new Set(rows.map((r) => r.k));
    this.kept.set(scope, keys);
    return keys;
  }

  /** HMAC of the visitor's address and browser with a random salt that lives in memory for one UTC day. */
  private visitorHash(workspaceId: string, client: { ip: string; userAgent: string }, day: string): string {
    if (this.salt.day !== day) this.salt = { day, key: randomBytes(32) };
    return createHmac("sha256", this.salt.key).update(`${workspaceId}\n${client.ip}\n${client.userAgent.slice(0, 512)}`).digest("base64url").slice(0, 22);
  }

  private open(principal: Principal, ref: string, query: unknown): { workspace: WorkspaceRow; q: AnalyticsQuery; since: string } {
    // Writers read what searches found nothing: editors and above, not viewers or commenters.
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "editor");
    const q = parseInput(analyticsQuery, query);
    this.deps.plans.requireFeature(workspace.org_id, "analytics");
    this.flushSafely();
    return { workspace, q, since: dayOf(this.now() - (q.days - 1) * DAY_MS) };
  }

  private publishedWorkspace(ref: string): WorkspaceRow {
    const r = workspaceRef(ref);
    const ws = "id" in r ? this.deps.workspaces.byId(r.id) : this.deps.workspaces.bySlug(r.slug);
    // A workspace without a public site has no visitors to ask: the same 404 as an unknown one.
    if (!ws || ws.published !== 1) throw new NotFoundError("No published site by that name");
    return ws;
  }

  private flushSafely(): void {
    try {
      this.flush();
    } catch (error) {
      // That flush's figures are dropped (counts, not anyone's writing); a full disk is said as such, at most once a minute.
      if (this.deps.storage?.refusal(error, "analytics")) return;
      this.deps.log.error("analytics: flush failed", { error: String(error) });
    }
  }

  private runPurge(): void {
    try {
      this.purge();
    } catch (error) {
      this.deps.log.error("analytics: purge failed", { error: String(error) });
    }
  }
}

/**
 * The reports are built by plain functions whose types are inferred (src/analytics/reports.ts);
 * this fails to compile when one of their answers stops fitting its documented schema.
 */
type MustFit<Answer extends Documented, Documented> = Answer;
export type AnalyticsAnswersFit = [
  MustFit<ReturnType<Analytics["pages"]>, z.infer<typeof analyticsPagesOutput>>,
  MustFit<ReturnType<Analytics["searches"]>, z.infer<typeof analyticsSearchesOutput>>,
  MustFit<ReturnType<Analytics["overview"]>, z.infer<typeof analyticsOverviewOutput>>,
  MustFit<Pick<ReturnType<Analytics["consent"]>, "workspace_id" | "consent">, z.infer<typeof consentOutput>>,
];
