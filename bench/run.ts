/**
 * `bun run bench`: measures a real `quire serve` child (production argon2 parameters) and prints
 * one table. Not a test: numbers vary by machine; compare them with DESIGN.md §11 by hand.
 *
 * Adding a section: write `async function mySection(ctx: Ctx): Promise<Row[]>` and append it to
 * SECTIONS. Sections run in order against the same server; `ctx.user` is a registered account.
 * Options: `bun run bench [section-name ...]` runs only the named sections.
 */
import { ipFor, mb, ms, percentile, printTable, rssMb, startServer, timeEach, type BenchServer, type Row } from "./harness.ts";

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
  const only = Bun.argv.slice(2);
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

await main();
