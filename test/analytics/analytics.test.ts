/**
 * Analytics: app searches are counted (and the ones that found nothing listed for writers), site
 * page views arrive through services.analytics.recordPageView, consent is a visitor's cookie plus
 * a daily count, nothing identifying is stored, and storage stays bounded under floods.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { openAnalyticsDb } from "../../src/analytics/database.ts";
import { Analytics, MAX_PATHS_PER_DAY, MAX_QUERIES_PER_DAY, OTHER } from "../../src/analytics/analytics.ts";
import { silentLogger } from "../helpers/server.ts";
import { createLogger } from "../../src/core/log.ts";
import { StorageHealth } from "../../src/core/storage-errors.ts";

let server: TestServer;
let owner: TestUser;
let outsider: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  outsider = await registerUser(server.url);
});
afterAll(() => server.close());

const analyticsOf = (u: TestUser, report: string, query = "") => u.client.get(`/api/v1/workspaces/${u.workspaceId}/analytics/${report}${query}`);
const publish = async (u: TestUser) => expect((await u.client.put(`/api/v1/workspaces/${u.workspaceId}/admin/settings`, { published: true })).status).toBe(200);

describe("search queries", () => {
  test("app searches are counted per query, and the ones that found nothing are listed apart", async () => {
    const search = (q: string) => owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/search?q=${encodeURIComponent(q)}`);
    await server.services.search.whenIndexed(owner.workspaceId);
    for (const q of ["welcome", "Welcome ", "WELCOME", "zebra-unicorn-xyz", "zebra-unicorn-xyz", "kubernetes helm"]) expect((await search(q)).status).toBe(200);

    const r = await analyticsOf(owner, "searches", "?days=7");
    expect(r.status).toBe(200);
    expect(r.body.days).toBe(7);
    expect(r.body.items[0]).toMatchObject({ query: "welcome", searches: 3 });
    expect(r.body.no_results).toEqual([
      { query: "zebra-unicorn-xyz", searches: 2 },
      { query: "kubernetes helm", searches: 1 },
    ]);
    expect(r.body).toMatchObject({ searches: 6, no_result_searches: 3 });
    const site = await analyticsOf(owner, "searches", "?source=site");
    expect(site.body.items).toEqual([]);
  });
});

describe("page views and consent", () => {
  test("recordPageView aggregates by path; referrers keep only another site's host; the overview sums up", async () => {
    const a = server.services.analytics;
    const ws = owner.workspaceId;
    for (let i = 0; i < 5; i++) a.recordPageView({ workspaceId: ws, path: "/guide/intro?utm=x#top", referrer: "https://news.example.org/item?id=1&token=secret" });
    a.recordPageView({ workspaceId: ws, path: "guide/setup", referrer: `${server.config.baseUrl}/p/${owner.workspaceSlug}/` });
    a.recordPageView({ workspaceId: ws, path: "/guide/setup", referrer: "javascript:alert(1)" });

    const pages = await analyticsOf(owner, "pages");
    expect(pages.status).toBe(200);
    expect(pages.body).toMatchObject({ days: 30, total_views: 7 });
    expect(pages.body.items).toEqual([
      { path: "/guide/intro", views: 5 },
      { path: "/guide/setup", views: 2 },
    ]);
    expect(pages.body.referrers).toEqual([{ host: "news.example.org", views: 5 }]);

    const overview = await analyticsOf(owner, "overview", "?days=7");
    expect(overview.status).toBe(200);
    expect(overview.body.daily).toHaveLength(7);
    expect(overview.body.daily.at(-1)).toMatchObject({ page_views: 7 });
    expect(overview.body).toMatchObject({ page_views: 7, searches: 6, no_result_searches: 3 });
    expect(overview.body.top_pages[0].path).toBe("/guide/intro");
  });

  test("consent: the answer goes into the visitor's cookie, the server keeps a daily count; visitors count only with consent", async () => {
    const ws = owner.workspaceId;
    const visitor = new Client(server.url);
    expect((await visitor.post("/api/analytics/consent", { workspace: owner.workspaceSlug, granted: true })).status).toBe(404); // not published yet
    await publish(owner);
    const yes = await visitor.post("/api/analytics/consent", { workspace: owner.workspaceSlug, granted: true });
    expect(yes.status).toBe(200);
    expect(yes.body).toEqual({ workspace_id: ws, consent: "granted" });
    const cookie = yes.headers.getSetCookie().find((c) => c.startsWith("quire_analytics_consent="))!;
    expect(cookie).toContain("quire_analytics_consent=granted");
    expect(cookie.toLowerCase()).toContain("samesite=lax");
    const no = await new Client(server.url).post("/api/analytics/consent", { workspace: ws, granted: false });
    expect(no.body.consent).toBe("denied");

    const a = server.services.analytics;
    const client = { ip: "203.0.113.9", userAgent: "Mozilla/5.0 (X11; Linux x86_64) Test/1.0" };
    a.recordPageView({ workspaceId: ws, path: "/", consent: true, client });
    a.recordPageView({ workspaceId: ws, path: "/faq", consent: true, client }); // the same visitor again
    a.recordPageView({ workspaceId: ws, path: "/", consent: true, client: { ...client, ip: "198.51.100.7" } });
    a.recordPageView({ workspaceId: ws, path: "/", consent: false, client: { ...client, ip: "192.0.2.1" } });
    const overview = await analyticsOf(owner, "overview");
    expect(overview.body.visitors).toBe(2);
    expect(overview.body.consents).toEqual({ granted: 1, denied: 1 });

    // Nothing in analytics.db holds an address, a user agent or a full referrer URL.
    a.flush();
    const dump = JSON.stringify(
      ["page_views", "referrers", "searches", "visitors", "visitor_days", "consents"].map((t) => a.db.query(`SELECT * FROM ${t}`).all()),
    );
    for (const secret of ["203.0.113.9", "198.51.100.7", "192.0.2.1", "Mozilla", "token=secret", "utm="]) expect(dump).not.toContain(secret);
  });

  test("consent is refused for bad input and unknown sites, and is rate limited as a published site (600/min per IP)", async () => {
    const visitor = new Client(server.url);
    for (const body of [{}, { workspace: owner.workspaceId }, { workspace: owner.workspaceId, granted: "yes" }, { workspace: owner.workspaceId, granted: true, ip: "1.2.3.4" }]) {
      const r = await visitor.post("/api/analytics/consent", body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status: 400, error: "VALIDATION_ERROR" });
    }
    expect((await visitor.post("/api/analytics/consent", { workspace: "no-such-site", granted: true })).status).toBe(404);
    expect((await visitor.post("/api/analytics/consent", { workspace: outsider.workspaceId, granted: true })).status).toBe(404); // not published

    const flood = new Client(server.url);
    const before = server.services.analytics.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM consents").get()!.n;
    let refused = 0;
    for (let i = 0; i < 610; i++) {
      const r = await flood.post("/api/analytics/consent", { workspace: owner.workspaceId, granted: i % 2 === 0 });
      if (r.status === 429) {
        refused++;
        expect(r.body.error).toBe("RATE_LIMITED");
        expect(r.headers.get("retry-after")).not.toBeNull();
      }
    }
    expect(refused).toBe(10);
    // However many answers arrive, they are one row per site and day.
    expect(server.services.analytics.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM consents").get()!.n).toBe(before);
  });
});

describe("who may read analytics, and bad parameters", () => {
  test("a workspace of another organization is 404, no credentials 401, days outside 1–90 is 400", async () => {
    const other = await outsider.client.get(`/api/v1/workspaces/${owner.workspaceId}/analytics/pages`);
    expect(other.status).toBe(404);
    expect(other.body.error).toBe("NOT_FOUND");
    expect((await new Client(server.url).get(`/api/v1/workspaces/${owner.workspaceId}/analytics/overview`)).status).toBe(401);

    for (const days of ["0", "91", "-7", "abc", "7.5", "1e9"]) {
      const r = await analyticsOf(owner, "pages", `?days=${days}`);
      expect({ days, status: r.status, field: r.body.details?.field }).toEqual({ days, status: 400, field: "days" });
    }
    for (const days of [1, 7, 30, 90]) expect((await analyticsOf(owner, "searches", `?days=${days}`)).body.days).toBe(days);
  });

  test("viewers and commenters of the workspace get 403; an editor reads the reports", async () => {
    const join = async (role: string) => {
      const invited = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/invitations`, { email: `${role}.${Date.now()}@example.test`, role });
      const token = new URL(invited.body.url).pathname.split("/").pop()!;
      const accepted = await new Client(server.url).post("/api/auth/invitations/accept", { token, name: `A ${role}`, password: "a long passphrase" });
      expect(accepted.status).toBe(201);
      return new Client(server.url).withToken(accepted.body.access_token);
    };
    for (const role of ["viewer", "commenter"]) {
      const r = await (await join(role)).get(`/api/v1/workspaces/${owner.workspaceId}/analytics/overview`);
      expect({ role, status: r.status, error: r.body.error }).toEqual({ role, status: 403, error: "FORBIDDEN" });
    }
    expect((await (await join("editor")).get(`/api/v1/workspaces/${owner.workspaceId}/analytics/searches`)).status).toBe(200);
  });
});

describe("a deleted workspace", () => {
  test("takes its figures with it", async () => {
    const u = await registerUser(server.url);
    const a = server.services.analytics;
    a.recordPageView({ workspaceId: u.workspaceId, path: "/gone" });
    a.recordSearch({ workspaceId: u.workspaceId, query: "gone", results: 0, source: "site" });
    a.flush();
    const rows = () => a.db.query<{ n: number }, [string, string]>("SELECT (SELECT COUNT(*) FROM page_views WHERE workspace_id = ?) + (SELECT COUNT(*) FROM searches WHERE workspace_id = ?) AS n").get(u.workspaceId, u.workspaceId)!.n;
    expect(rows()).toBe(2);
    expect((await u.client.delete(`/api/v1/workspaces/${u.workspaceId}`)).status).toBe(204);
    expect(rows()).toBe(0);
  });
});

describe("bounded storage", () => {
  test("100,000 distinct junk paths and queries in one day keep at most the caps (+1 '(other)' row) and a small file", () => {
    const dir = tempDir();
    const db = openAnalyticsDb(join(dir, "analytics.db"));
    const analytics = new Analytics({
      db,
      workspaces: server.services.workspaces,
      permissions: server.services.permissions,
      plans: server.services.plans,
      log: silentLogger,
      baseUrl: "http://localhost:3000",
    });
    const ws = "01JUNKWORKSPACE0000000000A";
    const started = performance.now();
    for (let i = 0; i < 100_000; i++) {
      analytics.recordPageView({ workspaceId: ws, path: `/junk/${i}-${"x".repeat(i % 500)}`, referrer: `https://spam${i}.example/` });
      analytics.recordSearch({ workspaceId: ws, query: `junk query ${i} ${"y".repeat(i % 300)}`, results: 0, source: "site" });
    }
    analytics.flush();
    const perEvent = (performance.now() - started) / 200_000;
    const count = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
    expect(count("SELECT COUNT(*) AS n FROM page_views")).toBe(MAX_PATHS_PER_DAY + 1);
    expect(count("SELECT COUNT(*) AS n FROM searches")).toBe(MAX_QUERIES_PER_DAY + 1);
    expect(count("SELECT COUNT(*) AS n FROM referrers")).toBe(101);
    // Nothing is lost from the totals: what is past the cap is counted in '(other)'.
    expect(count("SELECT SUM(views) AS n FROM page_views")).toBe(100_000);
    expect(db.query<{ views: number }, [string]>("SELECT views FROM page_views WHERE path = ?").get(OTHER)!.views).toBe(100_000 - MAX_PATHS_PER_DAY);
    expect(count("SELECT SUM(searches) AS n FROM searches")).toBe(100_000);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const bytes = statSync(join(dir, "analytics.db")).size;
    expect(bytes).toBeLessThan(1024 * 1024);
    analytics.stop();
    db.close();
    console.log(`analytics: ${(perEvent * 1000).toFixed(2)} µs per recorded event (write included), file ${Math.round(bytes / 1024)} KiB`);
  }, 60_000);

  test("rows older than the retention window are purged; past days' visitor hashes become a count", () => {
    const dir = tempDir();
    const db = openAnalyticsDb(join(dir, "analytics.db"));
    let now = Date.parse("2026-01-01T12:00:00Z");
    const analytics = new Analytics({
      db,
      workspaces: server.services.workspaces,
      permissions: server.services.permissions,
      plans: server.services.plans,
      log: silentLogger,
      baseUrl: "http://localhost:3000",
      now: () => now,
    });
    const ws = "01JUNKWORKSPACE0000000000B";
    analytics.recordPageView({ workspaceId: ws, path: "/", consent: true, client: { ip: "203.0.113.1", userAgent: "a" } });
    analytics.recordPageView({ workspaceId: ws, path: "/", consent: true, client: { ip: "203.0.113.2", userAgent: "a" } });
    analytics.flush();
    now += 86_400_000;
    analytics.purge();
    expect(db.query("SELECT COUNT(*) AS n FROM visitors").get()).toEqual({ n: 0 });
    expect(db.query("SELECT day, visitors FROM visitor_days").all()).toEqual([{ day: "2026-01-01", visitors: 2 }]);
    now += 90 * 86_400_000;
    analytics.purge();
    expect(db.query("SELECT COUNT(*) AS n FROM page_views").get()).toEqual({ n: 0 });
    expect(db.query("SELECT COUNT(*) AS n FROM visitor_days").get()).toEqual({ n: 0 });
    db.close();
  });
});

describe("a full disk", () => {
  test("a flush the disk refuses is the storage warning (once a minute), not an error; the next flush with room writes", () => {
    const dir = tempDir();
    const db = openAnalyticsDb(join(dir, "analytics.db"));
    const lines: Array<Record<string, unknown>> = [];
    const log = createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) });
    const analytics = new Analytics({
      db,
      workspaces: server.services.workspaces,
      permissions: server.services.permissions,
      plans: server.services.plans,
      log,
      baseUrl: "http://localhost:3000",
      storage: new StorageHealth(dir, log, 0),
    });
    const ws = "01FULLDISKWORKSPACE000000A";
    // A real SQLITE_FULL: the file may not grow past the pages it has.
    const pages = db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
    db.run(`PRAGMA max_page_count = ${pages}`);
    for (let i = 0; i < 2_000; i++) analytics.recordPageView({ workspaceId: ws, path: `/page/${i}-${"x".repeat(200)}` });
    analytics.stop(); // flushes
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines.filter((l) => l.level === "warn").map((l) => [l.msg, l.where])).toEqual([["write refused: the data directory's disk is full", "analytics"]]);

    db.run("PRAGMA max_page_count = 1073741823");
    const again = new Analytics({ db, workspaces: server.services.workspaces, permissions: server.services.permissions, plans: server.services.plans, log, baseUrl: "http://localhost:3000" });
    again.recordPageView({ workspaceId: ws, path: "/after" });
    again.flush();
    expect(db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM page_views WHERE workspace_id = ?").get(ws)!.n).toBe(1);
    again.stop();
    db.close();
  });
});
