/**
 * `bun bench/export-peers.ts [--runs N] [1000] [10000]`: `quire export` side by side with Hugo (bare templates),
 * MkDocs (default theme with search) and VitePress (default theme with local search) on the same
 * generated corpus, in one run (docs/architecture.md §11: 1,000 pages < 2 s; within 5× of Hugo, ≥ 20× faster
 * than VitePress, faster than MkDocs). The 10,000-page corpus is built by Quire and Hugo only.
 * Also: the quality scan of the 1,000-page workspace, cold and cached.
 *
 * The peers are installed by this script — Debian's `hugo` and `mkdocs` with apt-get (root), npm's
 * `vitepress@1.6.4` into a temporary folder — never as dependencies of the product; a peer that
 * cannot be installed is skipped with the reason. Each build runs under /usr/bin/time -v (wall
 * time and the peak RSS of the process tree's largest process); the output size is the bytes of
 * the files written (for Quire: the ZIP, and the files it holds, uncompressed). Every build runs
 * `--runs` times (default 5; VitePress at most 3, it takes the longest) after one warm-up, the
 * tools taking turns run by run so a burst of load on a shared machine hits them all alike; the
 * table gives the median and p99 (nearest rank) of the wall times, the ratios use the medians, and
 * the load average before and after is printed beside it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { writeCorpus } from "./corpus.ts";
import { CLI } from "./harness.ts";
import { openQualityService } from "./quality-service.ts";

interface Result {
  tool: string;
  pages: number;
  /** Median wall time of the runs. */
  ms: number;
  p99: number;
  runs: number;
  rssMb: number;
  bytes: number;
  /** Quire: the files inside the ZIP, uncompressed. */
  unpacked?: number;
  note?: string;
}

const args = process.argv.slice(2);
const runsAt = args.indexOf("--runs");
const RUNS = runsAt >= 0 ? Math.max(1, Number(args.splice(runsAt, 2)[1]) || 1) : 5;
const sizes = args.map(Number).filter((n) => n > 0);
const SIZES = sizes.length > 0 ? sizes : [1000, 10000];
const work = mkdtempSync(join(tmpdir(), "quire-export-peers-"));
const results: Result[] = [];
const skipped: string[] = [];

function sh(cmd: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): { code: number; out: string } {
  const p = Bun.spawnSync(cmd, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? 1, out: p.stdout.toString() + p.stderr.toString() };
}

/** Runs `cmd` under /usr/bin/time -v: wall milliseconds and peak RSS in MB. */
function timed(cmd: string[], cwd: string, env: Record<string, string> = {}): { ms: number; rssMb: number; out: string } {
  const t0 = performance.now();
  const r = sh(["/usr/bin/time", "-v", ...cmd], { cwd, env });
  const ms = performance.now() - t0;
  if (r.code !== 0) throw new Error(`${cmd.join(" ")} exited ${r.code}:\n${r.out.slice(-3000)}`);
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.out)?.[1] ?? 0);
  return { ms, rssMb: kb / 1024, out: r.out };
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

function ensureApt(binary: string, pkg: string): string | null {
  if (sh(["which", binary]).code === 0) return null;
  if (process.getuid?.() !== 0) return `${pkg} is not installed and apt-get needs root`;
  sh(["apt-get", "update", "-qq"]);
  const r = sh(["apt-get", "install", "-y", "-qq", pkg], { env: { DEBIAN_FRONTEND: "noninteractive" } });
  return r.code === 0 && sh(["which", binary]).code === 0 ? null : `apt-get install ${pkg} failed: ${r.out.slice(-300)}`;
}

/** A tool's build of one corpus: prepared once, then measured run after run. */
interface Build {
  tool: string;
  pages: number;
  maxRuns: number;
  run(): { ms: number; rssMb: number };
  /** Output size after the last run. */
  size(): { bytes: number; unpacked?: number };
}

// ---- Quire -------------------------------------------------------------------------------------

function quire(pages: number): Build {
  const dataDir = join(work, `quire-${pages}`);
  const env = { QUIRE_ENV: "development", LOG_LEVEL: "error", DATA_DIR: "", QUIRE_WATCH_FILES: "false" };
  const init = sh(["bun", CLI, "init", "--workspace-name", "Bench", "--slug", `bench-${pages}`, "--data-dir", dataDir], { env });
  const id = /id ([0-9A-HJKMNP-TV-Z]{26})/.exec(init.out)?.[1];
  if (!id) throw new Error(`quire init failed:\n${init.out}`);
  writeCorpus(join(dataDir, "workspaces", id), pages);
  const rebuild = sh(["bun", CLI, "rebuild", "-w", id, "--data-dir", dataDir], { env });
  if (rebuild.code !== 0) throw new Error(`quire rebuild failed:\n${rebuild.out}`);
  const zip = join(work, `quire-${pages}.zip`);
  // One warm-up (Bun's transpiler cache), then the measured runs.
  sh(["bun", CLI, "export", "-w", id, "-o", zip, "--data-dir", dataDir], { env });
  if (pages === 1000) qualityScan(dataDir, id);
  return {
    tool: "quire export",
    pages,
    maxRuns: RUNS,
    run: () => timed(["bun", CLI, "export", "-w", id, "-o", zip, "--data-dir", dataDir, "--json"], work, env),
    size() {
      const files = unzipSync(readFileSync(zip));
      return { bytes: statSync(zip).size, unpacked: Object.values(files).reduce((s, f) => s + f.length, 0) };
    },
  };
}

async function qualityScanIn(dataDir: string, id: string): Promise<void> {
  const { db, quality } = await openQualityService(dataDir);
  const times: number[] = [];
  let findings = 0;
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    findings = quality.scanWorkspace(id).report.findings.length;
    times.push(performance.now() - t0);
  }
  const cached = times.slice(1).sort((a, b) => a - b);
  qualityRows.push(`quality scan, 1,000 pages: first ${times[0]!.toFixed(0)} ms, re-scan (cached) median ${cached[2]!.toFixed(0)} ms (${findings} findings; budget < 1 s)`);
  db.close();
}
const qualityRows: string[] = [];
let pendingQuality: Promise<void> = Promise.resolve();
function qualityScan(dataDir: string, id: string): void {
  pendingQuality = qualityScanIn(dataDir, id);
}

// ---- Hugo --------------------------------------------------------------------------------------

function hugo(pages: number): Build {
  const site = join(work, `hugo-${pages}`);
  writeCorpus(join(site, "content"), pages, { root: "_index.md" });
  const bare = `<!doctype html><html><head><meta charset="utf-8"><title>{{ .Title }}</title></head><body>{{ .Content }}</body></html>\n`;
  mkdirSync(join(site, "layouts/_default"), { recursive: true });
  writeFileSync(join(site, "layouts/_default/single.html"), bare);
  writeFileSync(join(site, "layouts/_default/list.html"), bare);
  writeFileSync(join(site, "layouts/index.html"), bare);
  writeFileSync(join(site, "config.toml"), `baseURL = "/"\ntitle = "Bench"\ndisableKinds = ["taxonomy", "term"]\n[markup.goldmark.renderer]\nunsafe = false\n`);
  sh(["hugo", "--quiet", "-d", "public"], { cwd: site }); // warm-up
  return {
    tool: "hugo",
    pages,
    maxRuns: RUNS,
    run() {
      rmSync(join(site, "public"), { recursive: true, force: true });
      return timed(["hugo", "--quiet", "-d", "public"], site);
    },
    size: () => ({ bytes: dirBytes(join(site, "public")) }),
  };
}

// ---- MkDocs ------------------------------------------------------------------------------------

function mkdocs(pages: number): Build {
  const site = join(work, `mkdocs-${pages}`);
  writeCorpus(join(site, "docs"), pages);
  writeFileSync(join(site, "mkdocs.yml"), `site_name: Bench\ntheme:\n  name: mkdocs\nplugins:\n  - search\n`);
  return {
    tool: "mkdocs",
    pages,
    maxRuns: RUNS,
    run: () => timed(["mkdocs", "build", "-q", "-d", "site"], site),
    size: () => ({ bytes: dirBytes(join(site, "site")) }),
  };
}

// ---- VitePress ---------------------------------------------------------------------------------

function vitepressInstall(): string | null {
  const dir = join(work, "vitepress-install");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `{"name":"bench-vitepress","private":true,"type":"module"}\n`);
  const r = sh(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "vitepress@1.6.4"], { cwd: dir });
  return r.code === 0 && existsSync(join(dir, "node_modules/.bin/vitepress")) ? null : `npm install vitepress@1.6.4 failed: ${r.out.slice(-300)}`;
}

function vitepress(pages: number): Build {
  const dir = join(work, "vitepress-install");
  const docs = join(dir, `docs-${pages}`);
  writeCorpus(docs, pages);
  mkdirSync(join(docs, ".vitepress"), { recursive: true });
  writeFileSync(
    join(docs, ".vitepress/config.mjs"),
    `export default { title: "Bench", ignoreDeadLinks: true, themeConfig: { search: { provider: "local" } } };\n`,
  );
  return {
    tool: "vitepress",
    pages,
    maxRuns: Math.min(RUNS, 3),
    run: () => timed(["node_modules/.bin/vitepress", "build", `docs-${pages}`], dir, { NODE_OPTIONS: "--max-old-space-size=4096" }),
    size: () => ({ bytes: dirBytes(join(docs, ".vitepress/dist")) }),
  };
}

// ---- run ---------------------------------------------------------------------------------------

const hugoMissing = ensureApt("hugo", "hugo");
const mkdocsMissing = ensureApt("mkdocs", "mkdocs");
const vitepressMissing = SIZES.includes(1000) ? vitepressInstall() : "not needed";
if (hugoMissing) skipped.push(`hugo: ${hugoMissing}`);
if (mkdocsMissing) skipped.push(`mkdocs: ${mkdocsMissing}`);
if (vitepressMissing && SIZES.includes(1000)) skipped.push(`vitepress: ${vitepressMissing}`);

const attempt = (name: string, fn: () => void) => {
  try {
    fn();
  } catch (error) {
    skipped.push(`${name}: ${error instanceof Error ? error.message.split("\n").slice(0, 6).join(" | ") : String(error)}`);
  }
};

const loadBefore = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
for (const pages of SIZES) {
  process.stderr.write(`building ${pages} pages…\n`);
  const builds: Build[] = [];
  const prepare = (name: string, make: () => Build) => attempt(name, () => void builds.push(make()));
  prepare(`quire ${pages}`, () => quire(pages));
  if (!hugoMissing) prepare(`hugo ${pages}`, () => hugo(pages));
  if (pages <= 1000) {
    if (!mkdocsMissing) prepare(`mkdocs ${pages}`, () => mkdocs(pages));
    if (!vitepressMissing) prepare(`vitepress ${pages}`, () => vitepress(pages));
  }
  const samples = new Map<Build, Array<{ ms: number; rssMb: number }>>(builds.map((b) => [b, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const b of builds) {
      if (samples.get(b)!.length >= b.maxRuns) continue;
      attempt(`${b.tool} ${pages} run ${run + 1}`, () => void samples.get(b)!.push(b.run()));
    }
  }
  for (const b of builds) {
    const got = samples.get(b)!;
    if (got.length === 0) continue;
    const times = got.map((x) => x.ms).sort((x, y) => x - y);
    const rss = got.map((x) => x.rssMb).sort((x, y) => x - y);
    const nearest = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
    results.push({ tool: b.tool, pages, ms: nearest(times, 0.5), p99: nearest(times, 0.99), runs: got.length, rssMb: nearest(rss, 0.5), ...b.size() });
  }
}
const loadAfter = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
await pendingQuality;

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
console.log(`\nExport side by side (${RUNS} runs each, VitePress ≤ 3; wall time median and p99, median peak RSS, output size; ratio = peer / Quire, of medians)`);
console.log(`Load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadAfter}; ${availableParallelism()} cores.`);
console.log("| pages | tool | runs | time (median) | p99 | × Quire | peak RSS | × Quire | output | × Quire |");
console.log("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of results) {
  const q = results.find((x) => x.tool === "quire export" && x.pages === r.pages);
  const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}×` : "");
  const size = r.unpacked ? `${mb(r.bytes)} zip (${mb(r.unpacked)} unpacked)` : mb(r.bytes);
  const qBytes = q?.unpacked ?? q?.bytes;
  console.log(
    `| ${r.pages} | ${r.tool} | ${r.runs} | ${(r.ms / 1000).toFixed(2)} s | ${(r.p99 / 1000).toFixed(2)} s | ${ratio(r.ms, q?.ms)} | ${r.rssMb.toFixed(0)} MB | ${ratio(r.rssMb, q?.rssMb)} | ${size} | ${ratio(r.unpacked ?? r.bytes, qBytes)} |`,
  );
}
for (const line of qualityRows) console.log(line);
console.log("Budgets: 1,000 pages < 2 s; Hugo / Quire time ≥ 0.2 (within 5×); VitePress / Quire ≥ 20; MkDocs / Quire > 1.");
for (const s of skipped) console.log(`skipped ${s}`);
rmSync(work, { recursive: true, force: true });
