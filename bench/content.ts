/**
 * `bun bench/content.ts`: the content ledger against docs/architecture.md §11's budgets. A script, not a test.
 *   - page save through the API (PUT with hash, no git): p50/p99
 *   - page read through the API: p50/p99
 *   - reconcile of 1,000 and 10,000 generated files (first run with ids, steady run, id injection)
 *   - RSS of a `quire serve` child: empty, and holding a 1,000-page workspace (idle and peak)
 *   - the cost of each fsync of an atomic write (file + folder, file only, none), interleaved
 * `bun bench/content.ts [api] [reconcile] [rss] [fsync]` runs only the named sections.
 * `bun bench/content.ts inject [default]` (not part of the full run): 1,000-file id injection,
 * ROUNDS (7) rounds per flush strategy, batch (syncfs) and per-file interleaved, or only the
 * platform's default with `default`.
 * The API limits writes to 60/min and reads to 300/min per organization, so requests rotate over
 * several registered users (each has its own organization and starter workspace).
 */
import { mkdirSync, rmSync, writeFileSync, readFileSync, openSync, writeSync, fsyncSync, closeSync, renameSync, constants } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { mkdtempSync } from "node:fs";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/core/log.ts";
import { startServer } from "../src/server.ts";
import { openDatabase, migrate } from "../src/db/database.ts";
import { EventBus } from "../src/core/event-bus.ts";
import { ContentLedger } from "../src/content/ledger.ts";
import { Reconciler } from "../src/content/reconcile.ts";
import { WorkspaceRecords } from "../src/workspaces/workspace-records.ts";
import { Organizations } from "../src/identity/organizations.ts";
import { ulid } from "../src/core/ids.ts";
import { batchFlush, setBatchFlush, type BatchFlush } from "../src/content/atomic-write.ts";

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (v: number) => `${v.toFixed(2)} ms`;
const rows: Array<[string, string, string]> = [];
const row = (measure: string, value: string, budget = "") => {
  rows.push([measure, value, budget]);
  process.stderr.write(`${measure}: ${value}\n`);
};

const FAST_ENV = { QUIRE_ENV: "test", ARGON2_MEMORY: "1024", ARGON2_TIME: "1", ARGON2_THREADS: "1", TRUST_PROXY: "true", LOG_LEVEL: "error" };
let ipCounter = 0;
const nextIp = () => `10.77.${(++ipCounter >> 8) & 255}.${ipCounter & 255}`;

async function apiLatency(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "quire-bench-"));
  const server = await startServer({ config: loadConfig(FAST_ENV), dataDir, log: silentLogger, port: 0, hostname: "127.0.0.1" });
  try {
    const users: Array<{ ip: string; token: string; slug: string }> = [];
    for (let i = 0; i < 28; i++) {
      const ip = nextIp();
      const res = await fetch(`${server.url}/api/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": ip },
        body: JSON.stringify({ name: `Bench ${i}`, email: `bench${i}@example.test`, password: "correct horse battery staple", terms_accepted: true }),
      });
      const body = (await res.json()) as { access_token: string; user: { id: string } };
      const slug = server.services.db.query<{ slug: string }, [string]>("SELECT slug FROM workspaces WHERE created_by = ?").get(body.user.id)!.slug;
      users.push({ ip, token: body.access_token, slug });
    }
    const call = (u: (typeof users)[number], method: string, path: string, json?: unknown) =>
      fetch(`${server.url}/api/v1/content/${u.slug}/${path}`, {
        method,
        headers: { authorization: `Bearer ${u.token}`, "x-forwarded-for": u.ip, ...(json ? { "content-type": "application/json" } : {}) },
        ...(json ? { body: JSON.stringify(json) } : {}),
      });
    // A realistic page: ~4 KB of Markdown.
    const body = Array.from({ length: 60 }, (_, i) => `Paragraph ${i} with [[welcome]] and some *emphasis* and \`code\`.`).join("\n\n");
    const hashes = new Map<string, string>();
    for (const u of users) {
      const r = (await (await call(u, "POST", "bench/page", { title: "Bench page", body })).json()) as { content_hash: string };
      hashes.set(u.slug, r.content_hash);
    }
    // Half the workspaces commit every save to their local git history (the default), half have
    // auto-commit off (the ledger alone, docs/architecture.md §11's "no git push" budget); requests alternate
    // between the halves, so load from elsewhere on the machine hits both alike.
    const extra = users.splice(24);
    const users_ = users.map((u, i) => ({ ...u, autoCommit: i % 2 === 0 }));
    for (const u of users_) server.services.db.query("UPDATE workspaces SET git_auto_commit = ? WHERE slug = ?").run(u.autoCommit ? 1 : 0, u.slug);
    const saves = { on: [] as number[], off: [] as number[] };
    const perUser = 50;
    const n = users_.length * perUser;
    for (let i = 0; i < n; i++) {
      const u = users_[i % users_.length]!;
      const t = performance.now();
      const res = await call(u, "PUT", "bench/page", { body: `${body}\n\nEdit ${i}\n`, lastKnownHash: hashes.get(u.slug) });
      const r = (await res.json()) as { content_hash: string };
      (u.autoCommit ? saves.on : saves.off).push(performance.now() - t);
      if (res.status !== 200) throw new Error(`save ${res.status}`);
      hashes.set(u.slug, r.content_hash);
    }
    // The commits are made by the git worker after the saves answered: how long until it is done,
    // and proof that every save got its commit.
    const t0 = performance.now();
    await server.services.gitSync.idle();
    const catchUp = performance.now() - t0;
    let commits = 0;
    for (const u of users_.filter((x) => x.autoCommit)) {
      const wsId = server.services.db.query<{ id: string }, [string]>("SELECT id FROM workspaces WHERE slug = ?").get(u.slug)!.id;
      commits += (await server.services.gitSync.repo(wsId).log(perUser + 10)).filter((c) => c.message.startsWith("Update bench/page.md")).length;
    }
    for (const [label, xs] of [["git auto-commit on", saves.on], ["git auto-commit off", saves.off]] as const) {
      row(`page save via API, p50 (${xs.length} PUTs, 4 KB, ${label})`, ms(percentile(xs, 50)), "< 5 ms");
      row(`page save via API, p99 (${label})`, ms(percentile(xs, 99)), "< 20 ms");
    }
    row(`git worker: commits made / saves with auto-commit on`, `${commits} / ${saves.on.length}`);
    row(`git worker: catch-up after the last save`, ms(catchUp));
    // Back to back on one page (an editor's autosave): each save follows the previous one in the
    // same workspace at once. Two workspaces with the starter pages, two with 1,000 committed
    // pages (the commit's cost must not grow with the workspace); on and off alternate.
    const [smallOn, smallOff, bigOn, bigOff] = extra as [(typeof users)[number], (typeof users)[number], (typeof users)[number], (typeof users)[number]];
    for (const u of [bigOn, bigOff]) {
      const wsId = server.services.db.query<{ id: string }, [string]>("SELECT id FROM workspaces WHERE slug = ?").get(u.slug)!.id;
      generate(join(dataDir, "workspaces", wsId), 1000, true);
      await server.services.reconciler.reconcile(wsId);
      const paths = server.services.ledger.records.liveIn(wsId).map((r) => r.path);
      await server.services.ledger.exclusive(wsId, () => server.services.gitSync.repo(wsId).commitPaths(paths, "Bench pages", { name: "Bench", email: "bench@example.test" }));
    }
    for (const [on, off, label] of [[smallOn, smallOff, "starter workspace"], [bigOn, bigOff, "1,000-page workspace"]] as const) {
      server.services.db.query("UPDATE workspaces SET git_auto_commit = 0 WHERE slug = ?").run(off.slug);
      const times = { on: [] as number[], off: [] as number[] };
      for (let i = 0; i < 2 * 50; i++) {
        const u = i % 2 === 0 ? on : off;
        const t = performance.now();
        const res = await call(u, "PUT", "bench/page", { body: `${body}\n\nBurst ${i}\n`, lastKnownHash: hashes.get(u.slug) });
        const r = (await res.json()) as { content_hash: string };
        (u === on ? times.on : times.off).push(performance.now() - t);
        if (res.status !== 200) throw new Error(`save ${res.status} ${JSON.stringify(r)}`);
        hashes.set(u.slug, r.content_hash);
      }
      const t0 = performance.now();
      await server.services.gitSync.idle();
      const lag = performance.now() - t0;
      row(`back-to-back saves, ${label}, auto-commit on: p50 / p99`, `${percentile(times.on, 50).toFixed(2)} / ${percentile(times.on, 99).toFixed(2)} ms`, "< 5 / < 20 ms");
      row(`back-to-back saves, ${label}, auto-commit off: p50 / p99`, `${percentile(times.off, 50).toFixed(2)} / ${percentile(times.off, 99).toFixed(2)} ms`, `git catch-up ${ms(lag)}`);
    }
    const reads: number[] = [];
    const m = 24 * 250;
    for (let i = 0; i < m; i++) {
      const u = users[i % users.length]!;
      const t = performance.now();
      const res = await call(u, "GET", "bench/page");
      await res.arrayBuffer();
      reads.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`read ${res.status}`);
    }
    row(`page read via API, p50 (${m} GETs)`, ms(percentile(reads, 50)));
    row(`page read via API, p99`, ms(percentile(reads, 99)), "< 5 ms");
  } finally {
    await server.stop(1000);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function generate(dir: string, count: number, withIds: boolean): void {
  for (let i = 0; i < count; i++) {
    const folder = join(dir, `section-${i % 20}`, `topic-${Math.floor(i / 20) % 10}`);
    mkdirSync(folder, { recursive: true });
    const id = withIds ? `id: ${ulid()}\n` : "";
    writeFileSync(
      join(folder, `page-${i}.md`),
      `---\n${id}title: Page ${i}\ndescription: Generated page ${i}\ntags: [bench, t${i % 7}]\n---\n\n# Page ${i}\n\n` +
        `Some text about topic ${i}, linking [[section-${(i + 1) % 20}/topic-0/page-${(i + 1) % count}]].\n`.repeat(8),
    );
  }
}

/** A database, one workspace and its content ledger over `dataDir`, for the reconcile benchmarks. */
function benchWorkspace(dataDir: string) {
  const db = openDatabase(join(dataDir, "quire.db"));
  migrate(db);
  const now = new Date().toISOString();
  const ws = db.transaction(() =>
    new WorkspaceRecords(db).insert({ orgId: new Organizations(db).defaultOrganization(now).id, name: "Bench", slug: "bench", createdBy: null, now }),
  )();
  const bus = new EventBus();
  const ledger = new ContentLedger({ db, dataDir, bus, log: silentLogger });
  return { db, ws, bus, ledger };
}

async function reconcileTimes(count: number, withIds: boolean): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "quire-bench-rc-"));
  try {
    const { db, ws, bus, ledger } = benchWorkspace(dataDir);
    generate(ledger.dir(ws.id).root, count, withIds);
    const reconciler = new Reconciler({ db, ledger, bus, log: silentLogger });
    const first = await reconciler.reconcile(ws.id);
    const label = withIds ? "files carry ids" : `ids injected, ${batchFlush(count)} flush`;
    row(`reconcile ${count} files, first run (${label})`, ms(first.duration_ms), count === 1000 ? "< 1 s" : "< 10 s");
    if (first.inserted !== count) throw new Error(`inserted ${first.inserted}`);
    const steady = await reconciler.reconcile(ws.id);
    row(`reconcile ${count} files, nothing changed`, ms(steady.duration_ms));
    db.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * docs/architecture.md §11's "reconcile 1,000 files < 1 s" where every file needs an id (a folder of Markdown
 * copied in, the first clone of a repository without ids): `rounds` fresh workspaces, each
 * reconciled once. Also the longest the event loop went without running a 1 ms timer during the
 * pass (what a request arriving meanwhile would wait, at most). With `compare`, the rounds
 * alternate between the batch flush (one syncfs) and the per-file fsyncs, so background load
 * hits both alike (docs/decisions/durability.md).
 */
async function injectTimes(rounds: number, compare: boolean): Promise<void> {
  const modes: Array<BatchFlush | null> = compare ? ["syncfs", "per-file"] : [null];
  const times = new Map(modes.map((m) => [m, [] as number[]]));
  const stalls = new Map(modes.map((m) => [m, [] as number[]]));
  for (let round = 0; round < rounds * modes.length; round++) {
    const mode = modes[round % modes.length]!;
    const dataDir = mkdtempSync(join(tmpdir(), "quire-bench-inject-"));
    try {
      const { db, ws, bus, ledger } = benchWorkspace(dataDir);
      generate(ledger.dir(ws.id).root, 1000, false);
      const reconciler = new Reconciler({ db, ledger, bus, log: silentLogger });
      setBatchFlush(mode);
      let last = performance.now();
      let stall = 0;
      const timer = setInterval(() => {
        const t = performance.now();
        stall = Math.max(stall, t - last);
        last = t;
      }, 1);
      const result = await reconciler.reconcile(ws.id);
      clearInterval(timer);
      stall = Math.max(stall, performance.now() - last);
      if (result.inserted !== 1000 || result.problems.length > 0) throw new Error(`inserted ${result.inserted}, problems ${result.problems.length}`);
      times.get(mode)!.push(result.duration_ms);
      stalls.get(mode)!.push(stall);
      await ledger.close();
      db.close();
    } finally {
      setBatchFlush(null);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  for (const mode of modes) {
    const t = times.get(mode)!;
    const label = mode ?? `default: ${batchFlush()}`;
    const sorted = [...t].sort((a, b) => a - b);
    row(
      `reconcile 1000 files injecting ids (${label}), median [min–max] of ${t.length}`,
      `${percentile(t, 50).toFixed(0)} ms [${sorted[0]!.toFixed(0)}–${sorted.at(-1)!.toFixed(0)}]`,
      "< 1 s",
    );
    row(`  longest event-loop stall during the pass (${label}), median`, ms(percentile(stalls.get(mode)!, 50)));
  }
}

/** RSS of a real `quire serve` child with `pages` generated pages, after the background reconcile. */
async function serveRss(pages = 1000): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "quire-bench-rss-"));
  const cli = join(import.meta.dir, "../src/cli.ts");
  const env = { ...process.env, ...FAST_ENV, LOG_FORMAT: "json" };
  try {
    const init = Bun.spawn([process.execPath, cli, "init", "--workspace-name", "Big", "--slug", "big", "--data-dir", dataDir], { env, stdout: "pipe", stderr: "pipe" });
    const out = await new Response(init.stdout).text();
    await init.exited;
    const wsId = /id ([0-9A-Z]{26})/.exec(out)![1]!;
    if (pages > 0) generate(join(dataDir, "workspaces", wsId), pages, true);
    const serve = Bun.spawn([process.execPath, cli, "serve", "--port", "0", "--data-dir", dataDir], { env, stdout: "pipe", stderr: "pipe" });
    const reader = serve.stdout.getReader();
    let line = "";
    while (!line.includes("ready at")) line += new TextDecoder().decode((await reader.read()).value);
    const url = /ready at (\S+)/.exec(line)![1]!;
    // Wait until the background reconcile has indexed the files.
    const db = openDatabase(join(dataDir, "quire.db"));
    for (let i = 0; i < 200; i++) {
      const n = db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM pages WHERE workspace_id = ? AND deleted_at IS NULL").get(wsId)!.n;
      if (n >= pages) break;
      await Bun.sleep(50);
    }
    db.close();
    await fetch(`${url}/api/health`);
    await Bun.sleep(1500);
    const status = readFileSync(`/proc/${serve.pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
    const peak = Number(/VmHWM:\s+(\d+)/.exec(status)![1]);
    if (pages === 0) row("RSS of quire serve, empty workspace (idle)", `${(kb / 1024).toFixed(1)} MB`);
    else {
      row(`RSS of quire serve with a ${pages.toLocaleString("en")}-page workspace (idle, after reconcile)`, `${(kb / 1024).toFixed(1)} MB`, "< 80 MB");
      row(`  peak RSS during the start-up reconcile`, `${(peak / 1024).toFixed(1)} MB`);
    }
    if (pages > 0) {
      // isomorphic-git loads on the first git operation: a registration commits the starter pages.
      const reg = await fetch(`${url}/api/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Bench", email: "rss@example.test", password: "correct horse battery staple", terms_accepted: true }),
      });
      if (reg.status !== 201) throw new Error(`register ${reg.status}`);
      await Bun.sleep(2500);
      const after = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${serve.pid}/status`, "utf8"))![1]);
      row(`  RSS after a registration (starter pages committed: git loaded)`, `${(after / 1024).toFixed(1)} MB`);
    }
    serve.kill("SIGTERM");
    await serve.exited;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * What each fsync of an atomic 4 KB page write costs on this disk, the three variants interleaved
 * so load changes hit them alike (docs/decisions/durability.md).
 */
async function fsyncCost(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "quire-bench-fsync-"));
  const data = Buffer.from("x".repeat(4096));
  const write = (path: string, file: boolean, folder: boolean) => {
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o644);
    writeSync(fd, data);
    if (file) fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, path);
    if (folder) {
      const d = openSync(dir, constants.O_RDONLY);
      fsyncSync(d);
      closeSync(d);
    }
  };
  const variants = [["file + folder fsync", true, true], ["file fsync only", true, false], ["no fsync", false, false]] as const;
  const times: number[][] = variants.map(() => []);
  try {
    for (let i = 0; i < 1500; i++) {
      const v = i % variants.length;
      const [, file, folder] = variants[v]!;
      const t = performance.now();
      write(join(dir, `p${i % 20}.md`), file, folder);
      times[v]!.push(performance.now() - t);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  variants.forEach(([label], v) => {
    const t = times[v]!;
    row(`atomic 4 KB write, ${label}: p50 / p99`, `${percentile(t, 50).toFixed(2)} / ${percentile(t, 99).toFixed(2)} ms`);
  });
}

const wanted = new Set(process.argv.slice(2));
const run = (name: string) => wanted.size === 0 || wanted.has(name);
if (run("api")) await apiLatency();
if (run("reconcile")) {
  await reconcileTimes(1000, true);
  await reconcileTimes(1000, false);
  await reconcileTimes(10_000, true);
}
if (wanted.has("inject")) await injectTimes(Number(process.env.ROUNDS ?? 7), !wanted.has("default"));
if (run("rss")) {
  await serveRss(0);
  await serveRss(1000);
}
if (run("fsync")) await fsyncCost();

const width = Math.max(...rows.map((r) => r[0].length));
process.stdout.write(`\n${"measure".padEnd(width)}  ${"value".padStart(10)}  budget\n`);
for (const [m, v, b] of rows) process.stdout.write(`${m.padEnd(width)}  ${v.padStart(10)}  ${b}\n`);
