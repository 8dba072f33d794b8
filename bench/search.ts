/**
 * Search benchmark (standalone: `bun bench/search.ts [pages...]`, default 1000 10000).
 *
 * For each size: generates that many pages of English-like text (a Zipf-distributed vocabulary,
 * ~350 words per page), records them in the ledger's `pages` table, feeds them through the real
 * SearchService as ledger changes, then measures query latency (the service call a request
 * makes: query plan, FTS5 ranking, snippets) over a mix of one- to three-word queries, some with
 * typos; the process memory the index adds; the index file's size; and a restart: a new service
 * over the same data directory answering its first query. Budgets (docs/architecture.md §11): p99 < 3 ms at
 * 1,000 pages, < 10 ms at 10,000.
 *
 * Then a build from scratch, as on the first start after `search/` is deleted (or after an index
 * format change): the pages' files and ledger rows are there, the index file is not, and the first
 * search starts the build. Reported: the total build time, that first search's latency, the
 * longest event-loop stall meanwhile (the worst lateness of a 10 ms interval timer), and the
 * latency of `GET /api/health` on an HTTP server in this process, asked every 10 ms during the
 * build by a separate client process (so its requests are sent even while this loop is stalled).
 */
import { Users } from "../src/identity/users.ts";
import { Restrictions } from "../src/access/restrictions/restrictions-service.ts";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openDatabase, migrate } from "../src/db/database.ts";
import { EventBus } from "../src/core/event-bus.ts";
import { SearchService } from "../src/search/search-service.ts";
import { WorkspaceRecords } from "../src/workspaces/workspace-records.ts";
import { Permissions } from "../src/access/permissions.ts";
import { createLogger } from "../src/core/log.ts";
import { ulid } from "../src/core/ids.ts";

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const SIZES = sizes.length > 0 ? sizes : [1000, 10000];
const QUERIES = 1000;

// Deterministic pseudo-random numbers so runs are comparable.
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

const COMMON = (
  "the of and to in is for that with on as by be this are from or it an at you your can not will " +
  "use using used page pages file files workspace server client request response error errors config " +
  "configuration install installation deploy deployment database query index search user users token " +
  "session sessions access role roles admin editor viewer comment comments event events stream socket " +
  "markdown frontmatter title description tags publish site theme export import backup restore sync " +
  "git remote branch commit push pull merge conflict webhook signature header cookie cache memory disk " +
  "performance latency budget benchmark test tests build binary release version upgrade migrate schema"
).split(" ");
const SYLLABLES = ["ka", "lo", "mi", "ren", "tor", "vel", "an", "dra", "po", "sit", "ul", "gen", "mar", "tek", "ion", "ser", "qua", "bel"];
const RARE: string[] = [];
for (let i = 0; i < 6000; i++) {
  const n = 2 + Math.floor(rand() * 3);
  let w = "";
  for (let j = 0; j < n; j++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
  RARE.push(w);
}
const VOCAB = [...COMMON, ...RARE];
// Zipf: word k drawn with probability ∝ 1/(k+1).
const weights = VOCAB.map((_, k) => 1 / (k + 1));
const cumulative: number[] = [];
weights.reduce((acc, w, i) => (cumulative[i] = acc + w), 0);
const total = cumulative[cumulative.length - 1]!;
function word(): string {
  const x = rand() * total;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo]!;
}
const sentence = (n: number) => Array.from({ length: n }, word).join(" ");

function page(i: number) {
  const paragraphs = Array.from({ length: 5 }, () => sentence(70)).join(".\n\n");
  return {
    page_id: ulid(),
    path: `section-${i % 50}/page-${i}.md`,
    title: sentence(4),
    description: sentence(12),
    tags: [word(), word()],
    body: `# ${sentence(4)}\n\n${paragraphs}.`,
  };
}

function typo(w: string): string {
  if (w.length < 5) return w;
  const i = 1 + Math.floor(rand() * (w.length - 2));
  return w.slice(0, i) + w.slice(i + 1);
}

function queries(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = 1 + Math.floor(rand() * 3);
    const words = Array.from({ length: k }, () => VOCAB[Math.floor(rand() * 400)]!);
    out.push((i % 5 === 0 ? words.map(typo) : words).join(" "));
  }
  return out;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const fmt = (ms: number) => ms.toFixed(2);

/**
 * Wall-clock and CPU time per query, sorted: on a shared machine the wall clock also counts time
 * spent waiting for a core, the CPU time only the work done.
 */
function timeQueries(svc: SearchService, workspaceId: string, list: string[]) {
  const times: number[] = [];
  const cpu: number[] = [];
  let hits = 0;
  for (const q of list) {
    const c0 = process.cpuUsage();
    const s0 = performance.now();
    hits += svc.searchWorkspace(workspaceId, q, 20).length;
    times.push(performance.now() - s0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { times: times.sort((a, b) => a - b), cpu: cpu.sort((a, b) => a - b), hits };
}

function memory() {
  Bun.gc(true);
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

const load = (() => {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
})();
console.log(`bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, load average ${load}; ${QUERIES} queries per size (1 in 5 with a typo)`);
for (const size of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), "quire-bench-search-"));
  const db = openDatabase(join(dir, "quire.db"));
  migrate(db);
  const now = new Date().toISOString();
  db.query("INSERT INTO organizations (id, name, handle, created_at) VALUES ('o', 'o', 'o', ?)").run(now);
  const workspaceId = ulid();
  db.query(
    "INSERT INTO workspaces (id, org_id, name, slug, webhook_secret, created_at, updated_at) VALUES (?, 'o', 'w', 'w', 's', ?, ?)",
  ).run(workspaceId, now, now);
  const bus = new EventBus();
  const workspaces = new WorkspaceRecords(db);
  const log = createLogger({ write: () => {} });
  const service = new SearchService({ db, dataDir: dir, bus, permissions: new Permissions(db, workspaces), restrictions: new Restrictions({ db, permissions: new Permissions(db, workspaces), users: new Users(db) }), workspaces, log });
  service.start();

  const pages = Array.from({ length: size }, (_, i) => page(i));
  const bodyBytes = pages.reduce((n, p) => n + p.body.length, 0);
  // The ledger's records, so a restarted service finds every indexed page current.
  const record = db.query(
    `INSERT INTO pages (id, workspace_id, path, title, description, tags, content_hash, frontmatter_hash, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'sha256:0', ?, ?)`,
  );
  for (const p of pages) {
    const file = join(dir, "workspaces", workspaceId, p.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `---\nid: ${p.page_id}\ntitle: ${p.title}\n---\n\n${p.body}`);
  }
  db.transaction(() => {
    for (const p of pages) record.run(p.page_id, workspaceId, p.path, p.title, p.description, JSON.stringify(p.tags), `sha256:${p.page_id}`, now, now);
  })();
  const before = memory();
  let t = performance.now();
  for (const p of pages) bus.publishChange({ kind: "upsert", workspace_id: workspaceId, page: p });
  const indexMs = performance.now() - t;
  const after = memory();

  const qs = queries(QUERIES);
  const run = (svc: SearchService, list: string[]) => timeQueries(svc, workspaceId, list);
  const line = (r: { times: number[]; cpu: number[]; hits: number }, n: number) =>
    `p50 ${fmt(pct(r.times, 50))} ms, p99 ${fmt(pct(r.times, 99))} ms, max ${fmt(r.times[r.times.length - 1]!)} ms ` +
    `(CPU p50 ${fmt(pct(r.cpu, 50))} ms, p99 ${fmt(pct(r.cpu, 99))} ms; avg ${(r.hits / n).toFixed(1)} hits)`;

  // Right after a burst of single-page writes: FTS5 holds one small segment per commit until
  // the background merge (which starts once writes pause) has run.
  const burst = run(service, qs.slice(0, 200));
  t = performance.now();
  service.flush();
  const mergeMs = performance.now() - t;
  const vocabBefore = memory();
  service.searchWorkspace(workspaceId, "pagez", 1); // a misspelt word loads the in-memory vocabulary
  const vocabAfter = memory();
  run(service, qs.slice(0, 100)); // warm-up
  const steady = run(service, qs);
  const afterQueries = memory();

  service.stop();
  const fileBytes = statSync(service.indexFile(workspaceId)).size;
  const beforeLoad = memory();
  const reloaded = new SearchService({ db, dataDir: dir, bus: new EventBus(), permissions: new Permissions(db, workspaces), restrictions: new Restrictions({ db, permissions: new Permissions(db, workspaces), users: new Users(db) }), workspaces, log });
  t = performance.now();
  reloaded.searchWorkspace(workspaceId, "deploy", 1);
  const loadMs = performance.now() - t;
  const from = reloaded.loadedFrom(workspaceId);
  const restarted = run(reloaded, qs.slice(0, 200));
  const afterLoad = memory();
  reloaded.stop();

  rmSync(join(dir, "search"), { recursive: true, force: true });
  const scratch = await buildFromScratch(new SearchService({ db, dataDir: dir, bus: new EventBus(), permissions: new Permissions(db, workspaces), restrictions: new Restrictions({ db, permissions: new Permissions(db, workspaces), users: new Users(db) }), workspaces, log }), workspaceId, qs.slice(0, 200));

  console.log(
    [
      `\n${size} pages (${mb(bodyBytes)} MB of body text)`,
      `  index build (one write per page): ${fmt(indexMs)} ms (${fmt((indexMs / size) * 1000)} µs/page); RSS +${mb(after.rss - before.rss)} MB`,
      `  query right after the writes (200 queries, segments not merged yet): ${line(burst, 200)}`,
      `  merging the segments: ${fmt(mergeMs)} ms (done in the background in small steps once writes pause)`,
      `  query, steady state (${QUERIES} queries): ${line(steady, QUERIES)}`,
      `  memory: typo vocabulary RSS +${mb(vocabAfter.rss - vocabBefore.rss)} MB / heap +${mb(vocabAfter.heap - vocabBefore.heap)} MB; process RSS after the queries ${mb(afterQueries.rss)} MB`,
      `  index file ${mb(fileBytes)} MB; restart: first query ${fmt(loadMs)} ms (index from ${from}), then 200 queries ${line(restarted, 200)}; RSS +${mb(afterLoad.rss - beforeLoad.rss)} MB`,
      `  build from scratch (search/ deleted; pages read from the ledger and their files): ${fmt(scratch.buildMs)} ms in all (CPU ${fmt(scratch.buildCpuMs)} ms; in one blocking transaction, as rebuild() does: ${fmt(scratch.oneTransactionMs)} ms, CPU ${fmt(scratch.oneTransactionCpuMs)} ms); first search ${fmt(scratch.firstSearchMs)} ms (${scratch.firstHits} hits)`,
      `    longest event-loop stall ${fmt(scratch.maxStallMs)} ms (10 ms timer; ${scratch.stallsOver50} stalls over 50 ms)`,
      `    GET /api/health during the build: ${scratch.health.length} answered, p50 ${fmt(pct(scratch.health, 50))} ms, max ${fmt(scratch.health[scratch.health.length - 1] ?? 0)} ms`,
      `    afterwards, once merged: 200 queries ${line(scratch.after, 200)}; ${scratch.pages} pages indexed`,
    ].join("\n"),
  );
  db.close();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A build from scratch measured from outside and inside: a client process asks this process's
 * `/api/health` every 10 ms, a 10 ms interval timer records how late it fires, and the first
 * search (which starts the build) is timed. The build is over when the service reports no work in
 * progress for the workspace.
 */
async function buildFromScratch(svc: SearchService, workspaceId: string, list: string[]) {
  const http = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ status: "ok" }) });
  const prober = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const url = "http://127.0.0.1:${http.port}/api/health";
       let done = false;
       (async () => { for await (const _ of Bun.stdin.stream()); done = true; })();
       const lines = [];
       while (!done) { const s = Date.now(); const t = performance.now(); await fetch(url); lines.push(s + " " + (performance.now() - t)); await Bun.sleep(10); }
       console.log(lines.join("\\n"));`,
    ],
    { stdin: "pipe", stdout: "pipe", stderr: "inherit" },
  );
  await Bun.sleep(300); // the prober is up and answered
  let last = performance.now();
  let maxStallMs = 0;
  let stallsOver50 = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - 10;
    if (late > maxStallMs) maxStallMs = late;
    if (late > 50) stallsOver50++;
    last = now;
  }, 10);
  const startedAt = Date.now();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const firstHits = svc.searchWorkspace(workspaceId, "deploy", 20).length;
  const firstSearchMs = performance.now() - t0;
  while (svc.indexing(workspaceId) !== null) await Bun.sleep(5);
  const buildMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const buildCpuMs = (c.user + c.system) / 1000;
  const endedAt = Date.now();
  await Bun.sleep(30); // the timer fires at least once after the build, so a stall at its end counts
  clearInterval(timer);
  prober.stdin.end();
  const out = await new Response(prober.stdout).text();
  http.stop(true);
  const health = out
    .trim()
    .split("\n")
    .map((l) => l.split(" ").map(Number) as [number, number])
    .filter(([sent, ms]) => sent + ms >= startedAt && sent <= endedAt)
    .map(([, ms]) => ms)
    .sort((a, b) => a - b);
  svc.flush();
  const after = timeQueries(svc, workspaceId, list);
  const pages = svc.indexedPages(workspaceId);
  // The same build the former way, for comparison under the same load: one transaction, nothing
  // else runs meanwhile (what `quire rebuild --search` still does, with no server running).
  const r0 = performance.now();
  const rc0 = process.cpuUsage();
  svc.rebuild(workspaceId);
  const rc = process.cpuUsage(rc0);
  const oneTransactionMs = performance.now() - r0;
  const oneTransactionCpuMs = (rc.user + rc.system) / 1000;
  svc.stop();
  return { buildMs, buildCpuMs, oneTransactionMs, oneTransactionCpuMs, firstSearchMs, firstHits, maxStallMs, stallsOver50, health, after, pages };
}
