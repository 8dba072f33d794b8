/**
 * `bun bench/export-peers.ts [1000] [10000]`: `quire export` side by side with Hugo (bare templates),
 * MkDocs (default theme with search) and VitePress (default theme with local search) on the same
 * generated corpus, in one run (DESIGN.md §11: 1,000 pages < 2 s; within 5× of Hugo, ≥ 20× faster
 * than VitePress, faster than MkDocs). The 10,000-page corpus is built by Quire and Hugo only.
 * Also: the quality scan of the 1,000-page workspace, cold and cached.
 *
 * The peers are installed by this script — Debian's `hugo` and `mkdocs` with apt-get (root), npm's
 * `vitepress@1.6.4` into a temporary folder — never as dependencies of the product; a peer that
 * cannot be installed is skipped with the reason. Each build runs under /usr/bin/time -v (wall
 * time and the peak RSS of the process tree's largest process); the output size is the bytes of
 * the files written (for Quire: the ZIP, and the files it holds, uncompressed).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { writeCorpus } from "./corpus.ts";
import { CLI } from "./harness.ts";

interface Result {
  tool: string;
  pages: number;
  ms: number;
  rssMb: number;
  bytes: number;
  /** Quire: the files inside the ZIP, uncompressed. */
  unpacked?: number;
  note?: string;
}

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
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

// ---- Quire -------------------------------------------------------------------------------------

function quire(pages: number): void {
  const dataDir = join(work, `quire-${pages}`);
  const env = { QUIRE_ENV: "development", LOG_LEVEL: "error", DATA_DIR: "", QUIRE_WATCH_FILES: "false" };
  const init = sh(["bun", CLI, "init", "--workspace-name", "Bench", "--slug", `bench-${pages}`, "--data-dir", dataDir], { env });
  const id = /id ([0-9A-HJKMNP-TV-Z]{26})/.exec(init.out)?.[1];
  if (!id) throw new Error(`quire init failed:\n${init.out}`);
  writeCorpus(join(dataDir, "workspaces", id), pages);
  const rebuild = sh(["bun", CLI, "rebuild", "-w", id, "--data-dir", dataDir], { env });
  if (rebuild.code !== 0) throw new Error(`quire rebuild failed:\n${rebuild.out}`);
  const zip = join(work, `quire-${pages}.zip`);
  // One warm-up (Bun's transpiler cache), then the measured run.
  sh(["bun", CLI, "export", "-w", id, "-o", zip, "--data-dir", dataDir], { env });
  const run = timed(["bun", CLI, "export", "-w", id, "-o", zip, "--data-dir", dataDir, "--json"], work, env);
  const files = unzipSync(readFileSync(zip));
  const unpacked = Object.values(files).reduce((s, f) => s + f.length, 0);
  results.push({ tool: "quire export", pages, ms: run.ms, rssMb: run.rssMb, bytes: statSync(zip).size, unpacked });
  if (pages === 1000) qualityScan(dataDir, id);
}

async function qualityScanIn(dataDir: string, id: string): Promise<void> {
  const { openDatabase } = await import("../src/db/database.ts");
  const { EventBus } = await import("../src/realtime/event-bus.ts");
  const { ContentLedger } = await import("../src/content/ledger.ts");
  const { silentLogger } = await import("../src/core/log.ts");
  const { WorkspaceRecords } = await import("../src/workspaces/workspace-records.ts");
  const { Permissions } = await import("../src/access/permissions.ts");
  const { QualityService } = await import("../src/publish/quality/quality-service.ts");
  const db = openDatabase(join(dataDir, "quire.db"));
  const ledger = new ContentLedger({ db, dataDir, bus: new EventBus(), log: silentLogger });
  const quality = new QualityService({ permissions: new Permissions(db, new WorkspaceRecords(db)), ledger });
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

function hugo(pages: number): void {
  const site = join(work, `hugo-${pages}`);
  writeCorpus(join(site, "content"), pages, { root: "_index.md" });
  const bare = `<!doctype html><html><head><meta charset="utf-8"><title>{{ .Title }}</title></head><body>{{ .Content }}</body></html>\n`;
  mkdirSync(join(site, "layouts/_default"), { recursive: true });
  writeFileSync(join(site, "layouts/_default/single.html"), bare);
  writeFileSync(join(site, "layouts/_default/list.html"), bare);
  writeFileSync(join(site, "layouts/index.html"), bare);
  writeFileSync(join(site, "config.toml"), `baseURL = "/"\ntitle = "Bench"\ndisableKinds = ["taxonomy", "term"]\n[markup.goldmark.renderer]\nunsafe = false\n`);
  sh(["hugo", "--quiet", "-d", "public"], { cwd: site }); // warm-up
  rmSync(join(site, "public"), { recursive: true, force: true });
  const run = timed(["hugo", "--quiet", "-d", "public"], site);
  results.push({ tool: "hugo", pages, ms: run.ms, rssMb: run.rssMb, bytes: dirBytes(join(site, "public")) });
}

// ---- MkDocs ------------------------------------------------------------------------------------

function mkdocs(pages: number): void {
  const site = join(work, `mkdocs-${pages}`);
  writeCorpus(join(site, "docs"), pages);
  writeFileSync(join(site, "mkdocs.yml"), `site_name: Bench\ntheme:\n  name: mkdocs\nplugins:\n  - search\n`);
  const run = timed(["mkdocs", "build", "-q", "-d", "site"], site);
  results.push({ tool: "mkdocs", pages, ms: run.ms, rssMb: run.rssMb, bytes: dirBytes(join(site, "site")) });
}

// ---- VitePress ---------------------------------------------------------------------------------

function vitepressInstall(): string | null {
  const dir = join(work, "vitepress-install");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `{"name":"bench-vitepress","private":true,"type":"module"}\n`);
  const r = sh(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "vitepress@1.6.4"], { cwd: dir });
  return r.code === 0 && existsSync(join(dir, "node_modules/.bin/vitepress")) ? null : `npm install vitepress@1.6.4 failed: ${r.out.slice(-300)}`;
}

function vitepress(pages: number): void {
  const dir = join(work, "vitepress-install");
  const docs = join(dir, `docs-${pages}`);
  writeCorpus(docs, pages);
  mkdirSync(join(docs, ".vitepress"), { recursive: true });
  writeFileSync(
    join(docs, ".vitepress/config.mjs"),
    `export default { title: "Bench", ignoreDeadLinks: true, themeConfig: { search: { provider: "local" } } };\n`,
  );
  const run = timed(["node_modules/.bin/vitepress", "build", `docs-${pages}`], dir, { NODE_OPTIONS: "--max-old-space-size=4096" });
  results.push({ tool: "vitepress", pages, ms: run.ms, rssMb: run.rssMb, bytes: dirBytes(join(docs, ".vitepress/dist")) });
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

for (const pages of SIZES) {
  process.stderr.write(`building ${pages} pages…\n`);
  attempt(`quire ${pages}`, () => quire(pages));
  if (!hugoMissing) attempt(`hugo ${pages}`, () => hugo(pages));
  if (pages <= 1000) {
    if (!mkdocsMissing) attempt(`mkdocs ${pages}`, () => mkdocs(pages));
    if (!vitepressMissing) attempt(`vitepress ${pages}`, () => vitepress(pages));
  }
}
await pendingQuality;

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
console.log("\nExport side by side (wall time, peak RSS, output size; ratio = peer / Quire)");
console.log("| pages | tool | time | × Quire | peak RSS | × Quire | output | × Quire |");
console.log("|---:|---|---:|---:|---:|---:|---:|---:|");
for (const r of results) {
  const q = results.find((x) => x.tool === "quire export" && x.pages === r.pages);
  const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}×` : "");
  const size = r.unpacked ? `${mb(r.bytes)} zip (${mb(r.unpacked)} unpacked)` : mb(r.bytes);
  const qBytes = q?.unpacked ?? q?.bytes;
  console.log(
    `| ${r.pages} | ${r.tool} | ${(r.ms / 1000).toFixed(2)} s | ${ratio(r.ms, q?.ms)} | ${r.rssMb.toFixed(0)} MB | ${ratio(r.rssMb, q?.rssMb)} | ${size} | ${ratio(r.unpacked ?? r.bytes, qBytes)} |`,
  );
}
for (const line of qualityRows) console.log(line);
console.log("Budgets: 1,000 pages < 2 s; Hugo / Quire time ≥ 0.2 (within 5×); VitePress / Quire ≥ 20; MkDocs / Quire > 1.");
for (const s of skipped) console.log(`skipped ${s}`);
rmSync(work, { recursive: true, force: true });
