/**
 * `bun bench/site-scale.ts [pages]`: a large published site (docs/architecture.md §11; issue
 * targets on a generated 5,000-page site: a page's HTML ≤ 80 KB, cached page p99 < 2 ms, first
 * render p99 < 15 ms). The generated corpus of bench/corpus.ts (folders of 50 pages) is written
 * into a workspace's folder, reconciled and published; then, over HTTP on loopback against an
 * in-process server: the page's size, the navigation file and the site map, a cached page's
 * latency and a first render's (the rendered documents dropped before each request; the site
 * model kept, as after a publish elsewhere has already rebuilt it) — once the import's own background
 * work (commits, search indexing) is done, and a row for a cached page while it runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/core/log.ts";
import { startServer } from "../src/server.ts";
import { pagePath, writeCorpus } from "./corpus.ts";
import { ms, percentile, printTable, type Row } from "./harness.ts";

const PAGES = Number(process.argv[2] ?? 5000);
const FAST_ENV = { QUIRE_ENV: "test", ARGON2_MEMORY: "1024", ARGON2_TIME: "1", ARGON2_THREADS: "1", TRUST_PROXY: "true", LOG_LEVEL: "error" };
let ip = 0;
const nextIp = () => `10.${(++ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`;

async function json(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json", "x-forwarded-for": nextIp(), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function timeGets(url: string, n: number, before?: () => void): Promise<{ samples: number[]; bytes: number }> {
  const samples: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    before?.();
    const t = performance.now();
    const res = await fetch(url, { headers: { "x-forwarded-for": nextIp() } });
    const body = await res.arrayBuffer();
    samples.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    bytes = body.byteLength;
  }
  return { samples, bytes };
}

const rows: Row[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "quire-bench-site-scale-"));
const server = await startServer({ config: loadConfig(FAST_ENV), dataDir, log: silentLogger, port: 0, hostname: "127.0.0.1" });
try {
  const base = server.url;
  const reg = await json(base, "POST", "/api/auth/register", null, { name: "Bench", email: `scale${Date.now()}@example.test`, password: "correct horse battery staple", terms_accepted: true });
  const ws = (await json(base, "GET", "/api/v1/workspaces", reg.access_token)).items[0] as { id: string; slug: string };
  await json(base, "PUT", `/api/v1/workspaces/${ws.id}/admin/settings`, reg.access_token, { published: true, visibility: "public" });
  await Bun.sleep(3000); // the starter pages' first commits
  const t0 = performance.now();
  writeCorpus(server.services.ledger.dir(ws.id).root, PAGES);
  await server.services.reconciler.reconcile(ws.id);
  const imported = (performance.now() - t0) / 1000;

  const page = `${base}/p/${ws.slug}/${pagePath(Math.floor(PAGES / 2)).replace(/\.md$/, "")}`;
  const warm = await fetch(page, { headers: { "x-forwarded-for": nextIp() } });
  const html = await warm.text();
  if (warm.status !== 200) throw new Error(`${page}: ${warm.status}`);
  const links = (html.match(/class="nav-link/g) ?? []).length;
  rows.push({ measure: `pages on the site`, value: String(PAGES + 1), note: `generated corpus, folders of 50; written and reconciled in ${imported.toFixed(1)} s` });
  rows.push({ measure: "a page's HTML", value: `${(Buffer.byteLength(html) / 1024).toFixed(1)} KB`, note: `target ≤ 80 KB; ${links} navigation links in it` });
  const navUrl = /data-nav-file="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");
  if (navUrl) {
    const nav = await fetch(base + navUrl, { headers: { "x-forwarded-for": nextIp() } });
    const navText = await nav.text();
    rows.push({ measure: "navigation file (nav.json, once per version)", value: `${(Buffer.byteLength(navText) / 1024).toFixed(1)} KB`, note: `${nav.headers.get("cache-control")}` });
  } else rows.push({ measure: "navigation file", value: "none", note: "the page carries the whole navigation" });
  const map = await fetch(`${base}/p/${ws.slug}/site-map`, { headers: { "x-forwarded-for": nextIp() } });
  const mapText = await map.text();
  rows.push({ measure: "site map page (every page, no script)", value: map.status === 200 ? `${(Buffer.byteLength(mapText) / 1024).toFixed(1)} KB` : `HTTP ${map.status}`, note: `${(mapText.match(/<a href=/g) ?? []).length} links` });
  const sitemap = await (await fetch(`${base}/p/${ws.slug}/sitemap.xml`, { headers: { "x-forwarded-for": nextIp() } })).text();
  rows.push({ measure: "sitemap.xml", value: `${(sitemap.match(/<loc>/g) ?? []).length} URLs` });

  // An import sets off work of its own after it (git commits of every page, the search index's
  // build, then the merge of its segments), on the same thread as the requests: what a reader
  // meets meanwhile is one row; the rounds measure the site once that work is done.
  const during = await timeGets(page, 1000);
  rows.push({ measure: "cached page GET during the import's background work: p50 / p99", value: `${ms(percentile(during.samples, 50))} / ${ms(percentile(during.samples, 99))}`, note: "commits, index build and merge share the thread" });
  const settle = performance.now();
  await server.services.gitSync.idle();
  await server.services.search.whenIndexed(ws.id);
  await Bun.sleep(2000); // segment merging starts 0.5 s after the last index write, in steps of about a millisecond
  rows.push({ measure: "background work after the import", value: `${((performance.now() - settle) / 1000).toFixed(1)} s`, note: "waited for before the rounds (incl. 2 s for the merge)" });

  for (let round = 1; round <= 3; round++) {
    await timeGets(page, 200);
    const cached = await timeGets(page, 2000);
    rows.push({ measure: `cached page GET, round ${round}: p50 / p99`, value: `${ms(percentile(cached.samples, 50))} / ${ms(percentile(cached.samples, 99))}`, note: "target p99 < 2 ms" });
    const drop = () => server.services.siteServer.forgetRendered();
    await timeGets(page, 10, drop);
    const first = await timeGets(page, 200, drop);
    rows.push({ measure: `first render, round ${round}: p50 / p99`, value: `${ms(percentile(first.samples, 50))} / ${ms(percentile(first.samples, 99))}`, note: "target p99 < 15 ms" });
  }
  rows.push({ measure: "machine load at the end (uptime)", value: (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" "), note: "2 cores shared with other work" });
} finally {
  await server.stop(1000);
  rmSync(dataDir, { recursive: true, force: true });
}
printTable(`Large published site (${PAGES} generated pages)`, rows);
process.exit(0);
