/**
 * The quality scan of a 1,000-page workspace (the export benchmark's corpus): the first scan of a
 * fresh process (cold caches, as after a start) in several processes, median and p99, and the
 * re-scan that reuses per-page results; then the part that dominated the first scan, finding
 * where links may be edited, over the same 1,000 pages: marked's block lexer against the line
 * scanner for pages in the plain subset (src/content/link-blocks.ts).
 *
 *   bun bench/quality-scan.ts [runs]     (default 15 first-scan processes)
 * Prints `uptime` first: a loaded machine slows every figure, so compare runs under like load.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pageText, writeCorpus } from "./corpus.ts";
import { CLI, percentile } from "./harness.ts";
import { openQualityService } from "./quality-service.ts";

const PAGES = 1000;

async function scanOnce(dataDir: string, id: string): Promise<{ first: number; cached: number }> {
  const { db, quality } = await openQualityService(dataDir);
  let t0 = performance.now();
  quality.scanWorkspace(id);
  const first = performance.now() - t0;
  t0 = performance.now();
  quality.scanWorkspace(id);
  const cached = performance.now() - t0;
  db.close();
  return { first, cached };
}

if (process.argv[2] === "--child") {
  console.log(JSON.stringify(await scanOnce(process.argv[3]!, process.argv[4]!)));
  process.exit(0);
}

const runs = Number(process.argv[2] ?? 15);
const fmt = (xs: number[]) => `median ${percentile(xs, 50).toFixed(0)} ms, p99 ${percentile(xs, 99).toFixed(0)} ms (${xs.length} runs)`;
console.log(`uptime: ${Bun.spawnSync(["uptime"]).stdout.toString().trim()}`);

const work = mkdtempSync(join(tmpdir(), "quire-quality-bench-"));
try {
  const env = { ...process.env, QUIRE_ENV: "development", LOG_LEVEL: "error", DATA_DIR: "", QUIRE_WATCH_FILES: "false" };
  const dataDir = join(work, "data");
  const init = Bun.spawnSync(["bun", CLI, "init", "--workspace-name", "Bench", "--slug", "bench", "--data-dir", dataDir], { env });
  const id = /id ([0-9A-HJKMNP-TV-Z]{26})/.exec(init.stdout.toString() + init.stderr.toString())?.[1];
  if (!id) throw new Error(`quire init failed:\n${init.stdout}${init.stderr}`);
  writeCorpus(join(dataDir, "workspaces", id), PAGES);
  const rebuild = Bun.spawnSync(["bun", CLI, "rebuild", "-w", id, "--data-dir", dataDir], { env });
  if (rebuild.exitCode !== 0) throw new Error(`quire rebuild failed:\n${rebuild.stdout}${rebuild.stderr}`);

  const first: number[] = [];
  const cached: number[] = [];
  Bun.spawnSync(["bun", import.meta.path, "--child", dataDir, id], { env }); // warm the transpiler cache
  for (let i = 0; i < runs; i++) {
    const child = Bun.spawnSync(["bun", import.meta.path, "--child", dataDir, id], { env });
    if (child.exitCode !== 0) throw new Error(`scan failed:\n${child.stderr}`);
    const r = JSON.parse(child.stdout.toString()) as { first: number; cached: number };
    first.push(r.first);
    cached.push(r.cached);
  }
  console.log(`quality scan, ${PAGES} pages, first scan in a fresh process: ${fmt(first)}`);
  console.log(`quality scan, ${PAGES} pages, re-scan (per-page results reused): ${fmt(cached)}`);

  // The link regions alone, in one process: both paths over the same pages, alternating.
  const regions = (await import("../src/content/link-regions.ts")) as Record<string, unknown>;
  const texts = Array.from({ length: PAGES }, (_, i) => pageText(i, PAGES));
  const paths: Array<[string, (t: string) => unknown]> = [["line scanner", regions.linkRegions as (t: string) => unknown]];
  if (typeof regions.linkRegionsByLexer === "function") paths.unshift(["marked block lexer", regions.linkRegionsByLexer as (t: string) => unknown]);
  const samples = new Map<string, number[]>(paths.map(([name]) => [name, []]));
  for (let r = 0; r < runs; r++) {
    for (const [name, fn] of paths) {
      const t0 = performance.now();
      for (const t of texts) fn(t);
      samples.get(name)!.push(performance.now() - t0);
    }
  }
  for (const [name, xs] of samples) console.log(`link regions of ${PAGES} pages, ${name}: ${fmt(xs)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`uptime: ${Bun.spawnSync(["uptime"]).stdout.toString().trim()}`);
