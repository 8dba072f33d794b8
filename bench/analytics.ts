/**
 * Analytics benchmark (standalone: `bun bench/analytics.ts`).
 *
 * Write cost: what recording one page view or one search costs its caller (a Map update; the
 * periodic flush writes the batch in one transaction), measured per call over 100,000 events with
 * the flushes included, and the cost of one flush of 2,000 distinct keys. Search: the app's search
 * call with the analytics hook against the same search without it.
 * Read cost: the three reports (pages, searches, overview) at the worst case the caps allow for
 * one workspace — 90 days × 1,000 paths, 1,000 queries per source and 100 referrers a day — and
 * the size of analytics.db holding it.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/core/log.ts";
import { buildServices } from "../src/services.ts";
import { MAX_PATHS_PER_DAY, MAX_QUERIES_PER_DAY, MAX_REFERRERS_PER_DAY, RETENTION_DAYS } from "../src/analytics/analytics.ts";
import { dayOf } from "../src/analytics/reports.ts";
import type { Principal } from "../src/core/principal.ts";
import { percentile, printTable, type Row } from "./harness.ts";

const dataDir = mkdtempSync(join(tmpdir(), "quire-bench-analytics-"));
const config = loadConfig({ QUIRE_ENV: "test", ARGON2_MEMORY: "1024", ARGON2_TIME: "1", ARGON2_THREADS: "1", QUIRE_WATCH_FILES: "false" });
const services = await buildServices({ config, dataDir, log: silentLogger });
const { user } = await services.auth.register({ name: "Bench", email: "bench@example.test", password: "a long passphrase", terms_accepted: true }, { ip: "127.0.0.1", device: "bench" });
const ws = services.db.query<{ id: string; org_id: string }, [string]>("SELECT id, org_id FROM workspaces WHERE created_by = ?").get(user.id)!;
const principal: Principal = { kind: "session", userId: user.id, orgId: ws.org_id, sessionId: "bench" };
// The reports check permissions with the principal's session; a bench principal needs none beyond the role.
const analytics = services.analytics;
const rows: Row[] = [];
const us = (ms: number) => `${(ms * 1000).toFixed(2)} µs`;
const ms = (v: number) => `${v.toFixed(2)} ms`;

// --- write cost per call, flushes included
{
  const N = 100_000;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) analytics.recordPageView({ workspaceId: ws.id, path: `/guide/page-${i % 400}`, referrer: i % 5 === 0 ? "https://news.example.org/x" : null });
  analytics.flush();
  rows.push({ measure: "recordPageView, per call (400 paths, flushes included)", value: us((performance.now() - t0) / N) });
  const t1 = performance.now();
  for (let i = 0; i < N; i++) analytics.recordSearch({ workspaceId: ws.id, query: `query ${i % 700}`, results: i % 3, source: i % 2 ? "app" : "site" });
  analytics.flush();
  rows.push({ measure: "recordSearch, per call (700 queries, flushes included)", value: us((performance.now() - t1) / N) });
  const t2 = performance.now();
  for (let i = 0; i < N; i++) analytics.recordPageView({ workspaceId: ws.id, path: `/junk/${i}`, consent: true, client: { ip: `198.51.${i >> 8 & 255}.${i & 255}`, userAgent: "bench" } });
  analytics.flush();
  rows.push({ measure: "recordPageView, per call (100,000 distinct paths + visitor hashes: the flood case)", value: us((performance.now() - t2) / N) });
  const flushes: number[] = [];
  for (let r = 0; r < 20; r++) {
    // A fresh workspace id each round, so every key is under the caps and is its own row.
    const fresh = `01BENCHFLUSH${String(r).padStart(14, "0")}`;
    for (let i = 0; i < 999; i++) analytics.recordSearch({ workspaceId: fresh, query: `flush ${r} ${i}`, results: 1, source: "app" });
    for (let i = 0; i < 999; i++) analytics.recordPageView({ workspaceId: fresh, path: `/flush/${i}` });
    const t = performance.now();
    analytics.flush();
    flushes.push(performance.now() - t);
  }
  rows.push({ measure: "one flush of ~2,000 distinct keys (p50 / p99)", value: `${ms(percentile(flushes, 50))} / ${ms(percentile(flushes, 99))}` });
}

// --- the app's search with and without the analytics hook
{
  await services.search.whenIndexed(ws.id);
  const time = (fn: () => void) => {
    const s: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const t = performance.now();
      fn();
      s.push(performance.now() - t);
    }
    return s;
  };
  time(() => services.search.search(principal, ws.id, { q: "welcome" }));
  const withHook = time(() => services.search.search(principal, ws.id, { q: "welcome" }));
  const hooks = services.search.searchedHooks.splice(0);
  const without = time(() => services.search.search(principal, ws.id, { q: "welcome" }));
  services.search.searchedHooks.push(...hooks);
  rows.push({ measure: "app search p50 / p99, with the analytics hook", value: `${ms(percentile(withHook, 50))} / ${ms(percentile(withHook, 99))}` });
  rows.push({ measure: "app search p50 / p99, without it", value: `${ms(percentile(without, 50))} / ${ms(percentile(without, 99))}` });
}

// --- reads at the caps' worst case for one workspace
{
  const db = analytics.db;
  db.exec("DELETE FROM page_views; DELETE FROM searches; DELETE FROM referrers; DELETE FROM visitors;");
  const now = Date.now();
  const t0 = performance.now();
  db.transaction(() => {
    const pv = db.query("INSERT INTO page_views (workspace_id, day, path, views) VALUES (?, ?, ?, ?)");
    const sq = db.query("INSERT INTO searches (workspace_id, day, source, query, searches, no_results) VALUES (?, ?, ?, ?, ?, ?)");
    const rf = db.query("INSERT INTO referrers (workspace_id, day, host, views) VALUES (?, ?, ?, ?)");
    for (let d = 0; d < RETENTION_DAYS; d++) {
      const day = dayOf(now - d * 86_400_000);
      for (let i = 0; i < MAX_PATHS_PER_DAY; i++) pv.run(ws.id, day, `/docs/section-${i % 40}/page-${i}`, 1 + ((i * 7 + d) % 50));
      for (const source of ["app", "site"]) for (let i = 0; i < MAX_QUERIES_PER_DAY; i++) sq.run(ws.id, day, source, `query words ${i}`, 1 + (i % 9), i % 4 === 0 ? 1 : 0);
      for (let i = 0; i < MAX_REFERRERS_PER_DAY; i++) rf.run(ws.id, day, `site${i}.example`, 1 + (i % 5));
    }
  })();
  const fill = performance.now() - t0;
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const size = statSync(join(dataDir, "analytics.db")).size;
  rows.push({ measure: `worst case for one workspace: ${RETENTION_DAYS} days × capped rows`, value: `${((MAX_PATHS_PER_DAY + 2 * MAX_QUERIES_PER_DAY + MAX_REFERRERS_PER_DAY) * RETENTION_DAYS).toLocaleString()} rows, ${(size / 1048576).toFixed(1)} MB`, note: `filled in ${ms(fill)}` });
  const reused: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    analytics.overview(principal, ws.id, { days: 90 });
    reused.push(performance.now() - t);
  }
  for (const days of [7, 30, 90]) {
    for (const report of ["pages", "searches", "overview"] as const) {
      const s: number[] = [];
      for (let i = 0; i < 15; i++) {
        // A figure written before each read, so the report is computed, never reused.
        analytics.recordSearch({ workspaceId: ws.id, query: "query words 1", results: 1, source: "app" });
        analytics.flush();
        analytics.forgetReports();
        const t = performance.now();
        analytics[report](principal, ws.id, { days });
        s.push(performance.now() - t);
      }
      rows.push({ measure: `GET …/analytics/${report}?days=${days} (service) p50 / max`, value: `${ms(percentile(s, 50))} / ${ms(Math.max(...s))}` });
    }
  }
  rows.push({ measure: "GET …/analytics/overview?days=90, asked again and again (reused while < 10 s old) p50", value: ms(percentile(reused.slice(1), 50)) });
}

printTable("analytics (analytics.db, daily aggregates)", rows);
await services.closeAll();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
