/**
 * Operations on a 1,000-page workspace: `quire status` and `quire doctor` as real processes
 * beside a running server (median and p99 over several runs, with `quire version` as the floor
 * any command pays to start), the cost of a `/metrics` scrape over HTTP after some traffic,
 * and `quire backup`'s time and size. Budgets (docs/architecture.md §11): status < 200 ms, doctor < 2 s,
 * scrape < 10 ms.
 *
 *   bun bench/ops.ts [pages=1000] [runs=15]
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, ms, percentile, printTable, type Row } from "./harness.ts";

const PAGES = Number(process.argv[2] ?? 1000);
const RUNS = Number(process.argv[3] ?? 15);
const ENV = { ...process.env, QUIRE_ENV: "development", LOG_FORMAT: "json", LOG_LEVEL: "info" } as Record<string, string>;
delete ENV.DATA_DIR;

/** The built executable, when `bun run build` made one: timed too, since that is what users run. */
const BINARY = join(import.meta.dir, "..", "dist", "quire");
const HAS_BINARY = existsSync(BINARY);

async function run(args: string[], env: Record<string, string> = ENV, cmd: string[] = [process.execPath, CLI]): Promise<{ code: number; out: string; ms: number }> {
  const t = performance.now();
  const proc = Bun.spawn([...cmd, ...args], { env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [out, , code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, ms: performance.now() - t };
}

async function times(args: string[], runs: number, cmd?: string[]): Promise<number[]> {
  const out: number[] = [];
  const expectCode = 0;
  await run(args, ENV, cmd); // warm the file cache once
  for (let i = 0; i < runs; i++) {
    const r = await run(args, ENV, cmd);
    if (r.code !== expectCode) throw new Error(`${args.join(" ")} exited ${r.code}:\n${r.out}`);
    out.push(r.ms);
  }
  return out;
}

const dataDir = mkdtempSync(join(tmpdir(), "quire-bench-ops-"));
try {
  const init = await run(["init", "--workspace-name", "Bench", "--slug", "bench", "--data-dir", dataDir]);
  const wsId = /id ([0-9A-Z]{26})/.exec(init.out)?.[1];
  if (!wsId) throw new Error(`init failed:\n${init.out}`);
  const root = join(dataDir, "workspaces", wsId);
  for (let i = 0; i < PAGES; i++) {
    const folder = join(root, `section-${i % 20}`, `topic-${Math.floor(i / 20) % 10}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, `page-${i}.md`),
      `---\ntitle: Page ${i}\ntags: [bench]\n---\n\n# Page ${i}\n\n` +
        `Some text about topic ${i}, linking [[section-${(i + 1) % 20}/topic-${Math.floor((i + 1) / 20) % 10}/page-${(i + 1) % PAGES}]].\n`.repeat(6),
    );
  }
  const rebuild = await run(["rebuild", "-w", wsId, "--data-dir", dataDir]);
  if (rebuild.code !== 0) throw new Error(`rebuild failed:\n${rebuild.out}`);

  // A server on it, with the loopback metrics listener.
  const serve = Bun.spawn([process.execPath, CLI, "serve", "--port", "0", "--data-dir", dataDir], {
    env: { ...ENV, METRICS_PORT: "0", BACKUP_ENABLED: "false" },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  let err = "";
  const decoder = new TextDecoder();
  const reader = serve.stderr.getReader();
  while (!/"msg":"started"/.test(err)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited:\n${err}`);
    err += decoder.decode(value, { stream: true });
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
  void new Response(serve.stdout).text();
  const metricsUrl = /"metrics listening","url":"([^"]+)"/.exec(err)?.[1];
  const port = /"url":"http:\/\/localhost:(\d+)"/.exec(err)?.[1];
  if (!metricsUrl || !port) throw new Error(`no metrics or server URL in:\n${err}`);

  try {
    const version = await times(["version"], RUNS);
    const status = await times(["status", "--data-dir", dataDir], RUNS);
    const doctor = await times(["doctor", "--data-dir", dataDir], Math.max(5, Math.round(RUNS / 2)));
    const doctorOut = (await run(["doctor", "--json", "--data-dir", dataDir])).out;
    const compiled = HAS_BINARY
      ? {
          version: await times(["version"], RUNS, [BINARY]),
          status: await times(["status", "--data-dir", dataDir], RUNS, [BINARY]),
          doctor: await times(["doctor", "--data-dir", dataDir], Math.max(5, Math.round(RUNS / 2)), [BINARY]),
        }
      : null;
    const checks = (JSON.parse(doctorOut) as { checks: Array<{ name: string; status: string }> }).checks;

    // Traffic over several routes so the scrape has series to render.
    for (let i = 0; i < 2000; i++) {
      const path = ["/api/health", "/api/ready", `/api/v1/content/bench/p-${i}.md`, `/nowhere/${i}`][i % 4]!;
      await (await fetch(`http://127.0.0.1:${port}${path}`, { headers: { "x-forwarded-for": `10.1.${i >> 8}.${i & 255}` } })).arrayBuffer();
    }
    const scrape: number[] = [];
    let size = 0;
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      size = (await (await fetch(metricsUrl)).text()).length;
      scrape.push(performance.now() - t);
    }
    const health: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await (await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { "x-forwarded-for": `10.2.${i >> 8}.${i & 255}` } })).arrayBuffer();
      health.push(performance.now() - t);
    }

    const backups: number[] = [];
    let bytes = 0;
    let inner = 0;
    for (let i = 0; i < 5; i++) {
      const r = await run(["backup", "--json", "--data-dir", dataDir]);
      if (r.code !== 0) throw new Error(`backup failed:\n${r.out}`);
      const made = JSON.parse(r.out) as { files: Array<{ bytes: number }>; ms: number };
      backups.push(r.ms);
      inner = made.ms;
      bytes = made.files.reduce((n, f) => n + f.bytes, 0);
    }
    const dbBytes = statSync(join(dataDir, "quire.db")).size;

    const rows: Row[] = [
      { measure: "quire version (process start floor) p50 / p99", value: `${ms(percentile(version, 50))} / ${ms(percentile(version, 99))}` },
      {
        measure: `quire status p50 / p99 (${RUNS} runs)`,
        value: `${ms(percentile(status, 50))} / ${ms(percentile(status, 99))}`,
        note: `< 200 ms; ${(percentile(status, 50) / percentile(version, 50)).toFixed(2)}× version`,
      },
      {
        measure: `quire doctor p50 / p99 (${doctor.length} runs)`,
        value: `${ms(percentile(doctor, 50))} / ${ms(percentile(doctor, 99))}`,
        note: `< 2 s; ${checks.map((c) => `${c.name}:${c.status}`).join(" ")}`,
      },
      ...(compiled
        ? [
            { measure: "dist/quire version p50 / p99", value: `${ms(percentile(compiled.version, 50))} / ${ms(percentile(compiled.version, 99))}` },
            { measure: "dist/quire status p50 / p99", value: `${ms(percentile(compiled.status, 50))} / ${ms(percentile(compiled.status, 99))}`, note: "< 200 ms (the executable users run)" },
            { measure: "dist/quire doctor p50 / p99", value: `${ms(percentile(compiled.doctor, 50))} / ${ms(percentile(compiled.doctor, 99))}`, note: "< 2 s" },
          ]
        : [{ measure: "dist/quire (not built)", value: "-", note: "bun run build first to time the executable too" }]),
      { measure: "/metrics scrape over HTTP p50 / p99 (200)", value: `${ms(percentile(scrape, 50))} / ${ms(percentile(scrape, 99))}`, note: `< 10 ms; ${size} bytes` },
      { measure: "/api/health over HTTP p50 / p99 (200)", value: `${ms(percentile(health, 50))} / ${ms(percentile(health, 99))}`, note: "a trivial request, for comparison" },
      { measure: "quire backup, whole command p50", value: ms(percentile(backups, 50)), note: `VACUUM INTO itself: ${ms(inner)}` },
      { measure: "backup size / live quire.db", value: `${(bytes / 1024).toFixed(0)} KiB`, note: `${(dbBytes / 1024).toFixed(0)} KiB live (WAL not counted)` },
    ];
    printTable(`Operations on a ${PAGES}-page workspace (a server running beside the commands)`, rows);
  } finally {
    serve.kill("SIGTERM");
    await serve.exited;
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
