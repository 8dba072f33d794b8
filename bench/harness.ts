/**
 * Shared plumbing for the benchmark scripts: a real `quire serve` child over a temporary data
 * directory, latency statistics, RSS readings and the result table.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const REPO = join(import.meta.dir, "..");
export const CLI = join(REPO, "src/cli.ts");

export interface Row {
  measure: string;
  value: string;
  /** The budget from docs/architecture.md §11, or a note. */
  note?: string;
}

export interface BenchServer {
  base: string;
  pid: number;
  dataDir: string;
  /** Milliseconds from spawn to the ready line. */
  startMs: number;
  stop(): Promise<void>;
}

/**
 * Spawns the CLI's `serve` on a free port. The environment is the caller's minus anything that
 * would make the numbers unrepresentative (inherited ARGON2_* or data directory), so password
 * hashing runs with the production defaults. `cli`: another checkout's src/cli.ts (a comparison run).
 */
export async function startServer(env: Record<string, string> = {}, opts: { dataDir?: string; cli?: string } = {}): Promise<BenchServer> {
  // A data directory the caller prepared (seeded rows) or a fresh one; removed by stop() either way.
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "quire-bench-"));
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("ARGON2_") && k !== "DATA_DIR" && k !== "PORT"),
  ) as Record<string, string>;
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, opts.cli ?? CLI, "serve", "--port", "0", "--data-dir", dataDir], {
    env: { ...clean, QUIRE_ENV: "development", LOG_LEVEL: "warn", LOG_FORMAT: "json", ...env },
    stdout: "pipe",
    stderr: "inherit",
    stdin: "ignore",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited before it was ready:\n${out}`);
    out += new TextDecoder().decode(value);
  }
  const startMs = performance.now() - t0;
  void (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  const port = /:(\d+) /.exec(out)?.[1];
  if (!port) throw new Error(`no port in the ready line: ${out}`);
  return {
    base: `http://127.0.0.1:${port}`,
    pid: proc.pid,
    dataDir,
    startMs,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resident set size of a process in MB (Linux /proc; null elsewhere). */
export function rssMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

export const ms = (v: number) => `${v.toFixed(2)} ms`;
export const mb = (v: number | null) => (v === null ? "n/a" : `${v.toFixed(1)} MB`);

/** Times `fn` `n` times in sequence and returns the per-call durations in ms. */
/** Times `fn` n times; `pauseMs` waits (untimed) after each call, letting work it set off run. */
export async function timeEach(n: number, fn: (i: number) => Promise<void>, pauseMs = 0): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
    if (pauseMs > 0) await Bun.sleep(pauseMs);
  }
  return out;
}

/** A distinct client address per call, for endpoints limited per IP (the server trusts X-Forwarded-For). */
export const ipFor = (i: number) => `10.77.${(i >> 8) & 255}.${i & 255}`;

export function printTable(title: string, rows: Row[]): void {
  const w0 = Math.max(7, ...rows.map((r) => r.measure.length));
  const w1 = Math.max(5, ...rows.map((r) => r.value.length));
  const line = (a: string, b: string, c: string) => `| ${a.padEnd(w0)} | ${b.padStart(w1)} | ${c}`;
  console.log(`\n${title}\n`);
  console.log(line("measure", "value", "budget / note"));
  console.log(`|${"-".repeat(w0 + 2)}|${"-".repeat(w1 + 2)}|${"-".repeat(20)}`);
  for (const r of rows) console.log(line(r.measure, r.value, r.note ?? ""));
}
