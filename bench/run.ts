/**
 * `bun run bench`: measures a real `quire serve` child (production argon2 parameters) and prints
 * one table. Not a test: numbers vary by machine; compare them with docs/architecture.md §11 by hand.
 *
 * Adding a section: write `async function mySection(ctx: Ctx): Promise<Row[]>` and append it to
 * SECTIONS. Sections run in order against the same server; `ctx.user` is a registered account.
 * Options: `bun run bench [section-name ...]` runs only the named sections.
 */
import { Database } from "bun:sqlite";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { CLI, REPO, ipFor, mb, ms, percentile, printTable, rssMb, startServer, timeEach, type BenchServer, type Row } from "./harness.ts";

interface Ctx {
  server: BenchServer;
  user: { email: string; password: string; token: string };
  json(path: string, init?: { method?: string; body?: unknown; token?: string; ip?: string }): Promise<{ status: number; body: any }>;
}

const SECTIONS: Array<{ name: string; run: (ctx: Ctx) => Promise<Row[]> }> = [
  { name: "login", run: loginLatency },
  { name: "read", run: authenticatedRead },
  { name: "concurrent", run: concurrentRead },
];

async function loginLatency(ctx: Ctx): Promise<Row[]> {
  const n = 30;
  const samples = await timeEach(n, async (i) => {
    // One address per login: the auth limit (20/min) is per IP for unauthenticated callers.
    const r = await ctx.json("/api/auth/login", { method: "POST", body: { email: ctx.user.email, password: ctx.user.password }, ip: ipFor(1000 + i) });
    if (r.status !== 200) throw new Error(`login ${r.status}: ${JSON.stringify(r.body)}`);
  });
  return [
    { measure: `login p50 (${n}, default argon2id)`, value: ms(percentile(samples, 50)), note: "dominated by the password hash" },
    { measure: `login p99 (${n})`, value: ms(percentile(samples, 99)) },
  ];
}

/** The route every page of the app calls first; /api/health stands in when it is missing. */
async function readPath(ctx: Ctx): Promise<string> {
  const r = await ctx.json("/api/v1/workspaces", { token: ctx.user.token });
  return r.status === 200 ? "/api/v1/workspaces" : "/api/health";
}

async function authenticatedRead(ctx: Ctx): Promise<Row[]> {
  const path = await readPath(ctx);
  const n = 2000;
  for (let i = 0; i < 50; i++) await ctx.json(path, { token: ctx.user.token }); // warm-up
  const samples = await timeEach(n, async () => {
    const r = await ctx.json(path, { token: ctx.user.token });
    if (r.status !== 200) throw new Error(`GET ${path} ${r.status}`);
  });
  return [
    { measure: `GET ${path} p50 (${n}, bearer JWT)`, value: ms(percentile(samples, 50)) },
    { measure: `GET ${path} p99 (${n})`, value: ms(percentile(samples, 99)) },
  ];
}

async function concurrentRead(ctx: Ctx): Promise<Row[]> {
  const path = await readPath(ctx);
  const clients = 10;
  const each = 200;
  const samples: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      samples.push(...(await timeEach(each, async () => void (await ctx.json(path, { token: ctx.user.token })))));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return [
    { measure: `GET ${path}, ${clients} concurrent clients`, value: `${Math.round((clients * each) / seconds)} req/s`, note: `p99 ${ms(percentile(samples, 99))}` },
    { measure: "RSS after concurrent load", value: mb(rssMb(ctx.server.pid)), note: "budget < 150 MB (10 users)" },
  ];
}

async function main() {
  const only = Bun.argv.slice(2).filter((a) => !a.startsWith("--"));
  if (only.length === 0 || only.includes("footprint")) await footprint();
  if (only.length > 0 && only.every((name) => name === "footprint")) return;
  const server = await startServer({ TRUST_PROXY: "true" });
  try {
    const rows: Row[] = [{ measure: "serve: spawn to ready line", value: ms(server.startMs), note: "includes Bun start-up and migrations on an empty dir" }];
    // Let start-up garbage settle before reading the idle figure.
    await Bun.sleep(1000);
    rows.push({ measure: "RSS idle after start (empty data dir)", value: mb(rssMb(server.pid)), note: "budget < 80 MB" });

    const json: Ctx["json"] = async (path, init = {}) => {
      const headers: Record<string, string> = { "x-forwarded-for": init.ip ?? "10.77.0.1" };
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      if (init.body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(server.base + path, {
        method: init.method ?? "GET",
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      return { status: res.status, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
    };
    const user = { email: `bench.${Date.now()}@example.test`, password: "a benchmark password", token: "" };
    const reg = await json("/api/auth/register", { method: "POST", body: { name: "Bench", email: user.email, password: user.password, terms_accepted: true } });
    if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
    user.token = reg.body.access_token;

    const ctx: Ctx = { server, user, json };
    for (const section of SECTIONS) {
      if (only.length > 0 && !only.includes(section.name)) continue;
      rows.push(...(await section.run(ctx)));
    }
    printTable(`Quire benchmark — ${new Date().toISOString()}, ${navigator.hardwareConcurrency} CPUs, Bun ${Bun.version}`, rows);
  } finally {
    await server.stop();
  }
}

/**
 * The footprint budgets of docs/architecture.md §11 on a data directory holding a 1,000-page workspace, for
 * each way of running the server (`bun src/cli.ts serve` and the compiled `dist/quire serve`),
 * over several fresh processes, interleaved, each on a fresh copy of the prepared directory (median and max):
 *   - cold start: spawn → first 200 from /api/health (polled every 2 ms on a port chosen up front);
 *   - idle RSS 5 s after that first answer;
 *   - idle RSS 5 s after a sign-in (production argon2id: 64 MiB; the web app's shell and script
 *     fetched as a browser would) and a page edit, the case that loads argon2 and isomorphic-git;
 *   - the first read and save after that idle time (the server released memory and compiled code);
 *   - peak RSS (VmHWM) over the whole run.
 * Each measured start is a restart: the copy gets one start of its own first (a copied file has a
 * new ctime and inode, so that start reads every page file and records its stat, as the last run
 * of a server would have; docs/decisions/startup-reconcile.md). The first variant prepares the
 * directory: name the build with the oldest database schema first when comparing builds.
 * Options: --runs=N (default 5), --bin=<path> (repeatable; default dist/quire when built), --source=no,
 * --bun-flag=<flag> (repeatable: an extra source variant run as `bun <flag> src/cli.ts`).
 */
async function footprint(): Promise<void> {
  const opt = (name: string) => Bun.argv.filter((a) => a.startsWith(`--${name}=`)).map((a) => a.slice(name.length + 3));
  const runs = Number(opt("runs")[0] ?? 5);
  const bins = opt("bin");
  if (bins.length === 0 && existsSync(join(REPO, "dist/quire"))) bins.push(join(REPO, "dist/quire"));
  const variants: Array<{ label: string; cmd: string[] }> = [
    ...(opt("source")[0] === "no" ? [] : [{ label: "bun src/cli.ts", cmd: [process.execPath, CLI] }]),
    ...opt("bun-flag").map((flag) => ({ label: `bun ${flag} src/cli.ts`, cmd: [process.execPath, flag, CLI] })),
    ...bins.map((bin) => ({ label: relative(REPO, bin).startsWith("..") ? bin : relative(REPO, bin), cmd: [bin] })),
  ];
  const fixture = await bigDataDir(variants[0]!.cmd);
  const rows: Row[] = [];
  try {
    // Interleaved (run i of every variant, then run i + 1), so a change in the machine's load
    // shifts every variant alike; each run starts on a fresh copy of the prepared directory, since
    // a run ends with a save whose commit the next start would otherwise still have to read.
    const all = variants.map(() => [] as FootprintRun[]);
    const prepared = `${fixture.dataDir}.prepared`;
    cpSync(fixture.dataDir, prepared, { recursive: true });
    try {
      for (let i = 0; i < runs; i++) {
        for (const [v, variant] of variants.entries()) {
          rmSync(fixture.dataDir, { recursive: true, force: true });
          cpSync(prepared, fixture.dataDir, { recursive: true });
          await restartPoint(variant.cmd, fixture.dataDir);
          all[v]!.push(await footprintRun(variant.cmd, fixture, i));
        }
      }
    } finally {
      rmSync(prepared, { recursive: true, force: true });
    }
    for (const [v, variant] of variants.entries()) {
      const samples = all[v]!;
      const stat = (pick: (r: FootprintRun) => number, unit: (v: number) => string) => {
        const xs = samples.map(pick).sort((a, b) => a - b);
        return `${unit(percentile(xs, 50))} / ${unit(xs[xs.length - 1]!)}`;
      };
      const n = `${runs} runs, median / max`;
      rows.push(
        { measure: `${variant.label}: cold start → first 200 (${n})`, value: stat((r) => r.firstOkMs, ms), note: "budget < 300 ms" },
        { measure: `${variant.label}: spawn → ready line`, value: stat((r) => r.readyMs, ms) },
        { measure: `${variant.label}: RSS idle, 1,000 pages`, value: stat((r) => r.idle.rss, mbs), note: `budget < 80 MB; anon ${stat((r) => r.idle.anon, mbs)}` },
        { measure: `${variant.label}: RSS idle 5 s after sign-in + edit`, value: stat((r) => r.afterEdit.rss, mbs), note: `budget < 80 MB; anon ${stat((r) => r.afterEdit.anon, mbs)}` },
        { measure: `${variant.label}: peak RSS (VmHWM)`, value: stat((r) => r.peak, mbs) },
        { measure: `${variant.label}: first read / save after 5 s idle`, value: `${stat((r) => r.readAfterIdleMs, ms)}`, note: `save ${stat((r) => r.saveAfterIdleMs, ms)}` },
      );
    }
  } finally {
    rmSync(fixture.dataDir, { recursive: true, force: true });
  }
  printTable(`Quire footprint — ${fixture.pages} pages, ${navigator.hardwareConcurrency} CPUs, Bun ${Bun.version}`, rows);
}

const mbs = (v: number) => `${v.toFixed(1)} MB`;

interface Fixture {
  dataDir: string;
  slug: string;
  pages: number;
  email: string;
  password: string;
}

interface Memory {
  rss: number;
  anon: number;
}

interface FootprintRun {
  firstOkMs: number;
  readyMs: number;
  idle: Memory;
  afterEdit: Memory;
  peak: number;
  readAfterIdleMs: number;
  saveAfterIdleMs: number;
}

function benchEnv(): Record<string, string> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("ARGON2_") && k !== "DATA_DIR" && k !== "PORT" && k !== "BUN_OPTIONS"),
  ) as Record<string, string>;
  return { ...clean, QUIRE_ENV: "development", LOG_LEVEL: "warn", LOG_FORMAT: "json", TRUST_PROXY: "true" };
}

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Spawns `serve` on a known port and polls /api/health until the first 200. */
async function spawnServe(cmd: string[], dataDir: string) {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const proc = Bun.spawn([...cmd, "serve", "--port", String(port), "--data-dir", dataDir], {
    env: benchEnv(),
    stdout: "pipe",
    stderr: "inherit",
    stdin: "ignore",
  });
  let readyMs = NaN;
  void (async () => {
    const decoder = new TextDecoder();
    let out = "";
    for await (const chunk of proc.stdout) {
      out += decoder.decode(chunk);
      if (Number.isNaN(readyMs) && out.includes("\n")) readyMs = performance.now() - t0;
    }
  })().catch(() => {});
  let firstOkMs = NaN;
  while (Number.isNaN(firstOkMs)) {
    if (proc.exitCode !== null) throw new Error(`serve exited with ${proc.exitCode} before answering`);
    if (performance.now() - t0 > 30_000) throw new Error("serve did not answer /api/health within 30 s");
    try {
      const res = await fetch(`${base}/api/health`);
      await res.arrayBuffer();
      if (res.status === 200) firstOkMs = performance.now() - t0;
    } catch {
      await Bun.sleep(2);
    }
  }
  while (Number.isNaN(readyMs)) await Bun.sleep(1);
  const stop = async () => {
    proc.kill("SIGTERM");
    await proc.exited;
  };
  return { proc, base, firstOkMs, readyMs, stop };
}

function memoryOf(pid: number): Memory & { peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon"), peak: kb("VmHWM") };
}

async function call(base: string, path: string, init: { method?: string; body?: unknown; token?: string; ip: string }) {
  const headers: Record<string, string> = { "x-forwarded-for": init.ip };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(base + path, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

/**
 * A data directory whose one user owns a workspace of 1,000 generated pages plus the starter
 * pages, already reconciled, indexed and committed by an earlier run, so each measured start
 * finds nothing to repair (a restart, which is what users see).
 */
async function bigDataDir(cmd: string[], pages = 1000): Promise<Fixture> {
  const dataDir = mkdtempSync(join(tmpdir(), "quire-bench-fp-"));
  const fixture: Fixture = { dataDir, slug: "", pages, email: `footprint.${Date.now()}@example.test`, password: "a benchmark password" };
  let s = await spawnServe(cmd, dataDir);
  const reg = await call(s.base, "/api/auth/register", { method: "POST", ip: ipFor(1), body: { name: "Footprint", email: fixture.email, password: fixture.password, terms_accepted: true } });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  await s.stop();
  const db = new Database(join(dataDir, "quire.db"), { readonly: true });
  const ws = db.query<{ id: string; slug: string }, []>("SELECT id, slug FROM workspaces WHERE deleted_at IS NULL").get()!;
  db.close();
  fixture.slug = ws.slug;
  for (let i = 0; i < pages; i++) {
    const folder = join(dataDir, "workspaces", ws.id, `section-${i % 20}`, `topic-${Math.floor(i / 20) % 10}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, `page-${i}.md`),
      `---\ntitle: Page ${i}\ndescription: Generated page ${i}\ntags: [bench, t${i % 7}]\n---\n\n# Page ${i}\n\n` +
        `Some text about topic ${i}, linking [[section-${(i + 1) % 20}/topic-0/page-${(i + 1) % pages}]].\n`.repeat(8),
    );
  }
  // The start-up reconcile injects ids, indexes and commits the files; wait for all of it.
  s = await spawnServe(cmd, dataDir);
  const count = () => {
    const d = new Database(join(dataDir, "quire.db"), { readonly: true });
    try {
      return d.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM pages WHERE workspace_id = ? AND deleted_at IS NULL").get(ws.id)!.n;
    } finally {
      d.close();
    }
  };
  for (let i = 0; i < 600 && count() < pages; i++) await Bun.sleep(100);
  if (count() < pages) throw new Error(`only ${count()} of ${pages} pages reconciled`);
  await Bun.sleep(3000);
  await s.stop();
  return fixture;
}

/**
 * One start and stop on a freshly copied directory, so the measured start that follows is a
 * restart after a clean run. Its start-up pass reads every copied file (new ctimes and inodes);
 * the files are left to age past the racy-stat margin first so that it may record their stats.
 */
async function restartPoint(cmd: string[], dataDir: string): Promise<void> {
  await Bun.sleep(2100);
  const s = await spawnServe(cmd, dataDir);
  await Bun.sleep(3000);
  await s.stop();
}

async function footprintRun(cmd: string[], fixture: Fixture, i: number): Promise<FootprintRun> {
  const s = await spawnServe(cmd, fixture.dataDir);
  try {
    await Bun.sleep(5000);
    const idle = memoryOf(s.proc.pid);
    const ip = ipFor(2000 + i);
    const login = await call(s.base, "/api/auth/login", { method: "POST", ip, body: { email: fixture.email, password: fixture.password } });
    if (login.status !== 200) throw new Error(`login ${login.status}: ${JSON.stringify(login.body)}`);
    const token = login.body.access_token as string;
    // A sign-in in a browser loads the web app: the shell and its script.
    const shell = await call(s.base, "/", { ip });
    const script = /src="(\/_app\/[^"]+\.js)"/.exec(String(shell.body))?.[1];
    if (shell.status !== 200 || !script) throw new Error(`web app shell ${shell.status}`);
    if ((await call(s.base, script, { ip })).status !== 200) throw new Error(`web app script ${script}`);
    const path = `/api/v1/content/${fixture.slug}/section-0/topic-0/page-0.md`;
    const page = await call(s.base, path, { token, ip });
    if (page.status !== 200) throw new Error(`read ${page.status}: ${JSON.stringify(page.body)}`);
    const put = await call(s.base, path, { method: "PUT", token, ip, body: { body: `${page.body.content}\nEdited in run ${i}.\n`, lastKnownHash: page.body.content_hash } });
    if (put.status !== 200) throw new Error(`save ${put.status}: ${JSON.stringify(put.body)}`);
    await Bun.sleep(5000);
    const afterEdit = memoryOf(s.proc.pid);
    // The first read and save after the server went idle (and released memory and compiled code).
    let t = performance.now();
    const again = await call(s.base, path, { token, ip });
    const readAfterIdleMs = performance.now() - t;
    t = performance.now();
    const put2 = await call(s.base, path, { method: "PUT", token, ip, body: { body: `${again.body.content}\nAnd again.\n`, lastKnownHash: again.body.content_hash } });
    const saveAfterIdleMs = performance.now() - t;
    if (put2.status !== 200) throw new Error(`save ${put2.status}: ${JSON.stringify(put2.body)}`);
    return { firstOkMs: s.firstOkMs, readyMs: s.readyMs, idle, afterEdit, peak: afterEdit.peak, readAfterIdleMs, saveAfterIdleMs };
  } finally {
    await s.stop();
  }
}

await main();
