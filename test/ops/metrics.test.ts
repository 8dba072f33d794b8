/**
 * /metrics: Prometheus text with docs/architecture.md §13's series, only for a platform owner's admin or
 * admin:read key on the main port (FF_METRICS), unauthenticated on 127.0.0.1 with METRICS_PORT;
 * route labels are templates, so 10,000 distinct URLs add no series and no URL reaches a scrape.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { runCli } from "../cli/spawn.ts";
import { isLocked } from "../../src/ops/instance-lock.ts";
import { registerUser } from "../helpers/factories.ts";
import { Client } from "../helpers/client.ts";
import { remoteWorkspace } from "../git/support.ts";
import { connect } from "../realtime/ws-client.ts";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});
async function server(env: Record<string, string> = {}) {
  const s = await startTestServer(env);
  servers.push(s);
  return s;
}
const base = (s: TestServer) => `http://127.0.0.1:${s.port}`;
async function key(owner: { client: Client }, scopes: string[]): Promise<string> {
  const res = await owner.client.post("/api/v1/api-keys", { name: scopes.join("+"), scopes });
  expect(res.status).toBe(201);
  return res.body.key;
}

test("FF_METRICS: only a platform owner's admin or admin:read key scrapes the main port", async () => {
  const s = await server({ FF_METRICS: "true" });
  const owner = await registerUser(base(s));
  const other = await registerUser(base(s));
  const anon = new Client(base(s));

  expect((await anon.get("/metrics")).status).toBe(401);
  // A session is not an API key; a read key is not admin; another user's admin key is not the owner's.
  expect((await owner.client.get("/metrics")).status).toBe(403);
  expect((await anon.withToken(await key(owner, ["read"])).get("/metrics")).status).toBe(403);
  const othersAdmin = await anon.withToken(await key(other, ["admin"])).get("/metrics");
  expect(othersAdmin.status).toBe(403);
  expect(othersAdmin.body.error).toBe("FORBIDDEN");

  for (const scopes of [["admin:read"], ["admin"]]) {
    const res = await anon.withToken(await key(owner, scopes)).get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  }
  const owners = anon.withToken(await key(owner, ["admin:read"]));
  await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/search?q=welcome`);
  const text = (await owners.get("/metrics")).text;
  for (const name of [
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "process_start_time_seconds",
    "quire_http_requests_total",
    "quire_http_request_duration_seconds_bucket",
    "quire_http_request_duration_seconds_sum",
    "quire_http_request_duration_seconds_count",
    "quire_pages",
    "quire_search_queries_total",
    'quire_git_sync_total{result="completed"}',
    "quire_email_outbox_pending",
    "quire_ws_connections",
  ]) {
    expect(text).toContain(name);
  }
  expect(text).toContain('quire_http_requests_total{route="/metrics",method="GET",status="403"}');
  expect(text).toMatch(/quire_http_requests_total\{route="\/api\/v1\/workspaces\/:id\/search",method="GET",status="200"\} 1\n/);
  expect(text).toMatch(/quire_search_queries_total 1\n/);
  // Two starter workspaces' pages.
  expect(Number(/quire_pages (\d+)/.exec(text)![1])).toBeGreaterThan(0);
  // Never an email address, an id from a path, or a token.
  expect(text).not.toContain(owner.email);
  expect(text).not.toContain(owner.workspaceId);
  expect(text).not.toContain("quire_live_");
}, 60_000);

test("without FF_METRICS the path is a 404 (not the web app), and METRICS_PORT serves it on 127.0.0.1 only, unauthenticated, instead", async () => {
  const off = await server();
  const owner = await registerUser(base(off));
  const res = await new Client(base(off)).withToken(await key(owner, ["admin"])).get("/metrics");
  expect(res.status).toBe(404);
  expect(res.body.error).toBe("NOT_FOUND");

  const s = await server({ FF_METRICS: "true", METRICS_PORT: "0" });
  expect(s.metricsPort).toBeGreaterThan(0);
  const scrape = await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`);
  expect(scrape.status).toBe(200);
  expect(await scrape.text()).toContain("quire_http_requests_total");
  expect((await fetch(`http://127.0.0.1:${s.metricsPort}/other`)).status).toBe(404);
  // Bound to 127.0.0.1: another loopback address reaches nothing.
  await expect(fetch(`http://127.0.0.2:${s.metricsPort}/metrics`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  // docs/interfaces.md §3: the listener serves it instead of the main port.
  expect((await fetch(`${base(s)}/metrics`)).status).toBe(404);
}, 60_000);

test("10,000 distinct URLs: bounded series, no raw path, email or token in any label (the scrape's cost is measured in bench/ops.ts)", async () => {
  const s = await server({ METRICS_PORT: "0" });
  const before = s.services.metrics.httpSeries;
  const seen: string[] = [];
  const paths = (i: number) => {
    const r = `${i}-${crypto.randomUUID()}`;
    if (i % 997 === 0) seen.push(r);
    return [
      `/api/v1/content/${r}/docs/${r}.md`, // a route template with parameters (401 inside)
      `/api/v1/nowhere/${r}`, // no API route: the app's catch-all
      `/some/page/${r}?token=quire_live_${r}`, // the web app's catch-all, a token in the query
      `/api/v1/users/${r}@example.test/x`,
    ][i % 4]!;
  };
  const N = 10_000;
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < N) {
        const i = next++;
        const path = paths(i);
        // One client address per 400 requests keeps each under the anonymous per-IP floor.
        // Every eighth request is a POST: no route takes POST at these paths (the `unmatched` label).
        const res = await fetch(`${base(s)}${path}`, {
          method: i % 8 === 7 ? "POST" : "GET",
          headers: { "x-forwarded-for": `10.9.${i >> 16}.${Math.floor(i / 400) & 255}` },
        });
        await res.arrayBuffer();
      }
    }),
  );
  const series = s.services.metrics.httpSeries;
  expect(series - before).toBeLessThan(20);
  const text = await (await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`)).text();
  expect(seen.length).toBeGreaterThan(5);
  for (const r of seen) expect(text).not.toContain(r);
  expect(text).not.toContain("@example.test");
  expect(text).not.toContain("quire_live_");
  expect(text).toContain('route="/api/v1/content/:workspace/*"');
  expect(text).toContain('route="/*"');
  expect(text).toContain('route="unmatched",method="POST",status="404"');
  const total = [...text.matchAll(/^quire_http_requests_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  expect(total).toBeGreaterThanOrEqual(N);

}, 60_000);

test("git syncs are counted by result, and open WebSockets are a gauge", async () => {
  const rw = await remoteWorkspace("metrics-sync");
  try {
    const render = () => rw.server.services.metrics.render();
    const before = Number(/quire_git_sync_total\{result="completed"\} (\d+)/.exec(render())![1]);
    const sync = await rw.owner.client.post(`/api/v1/workspaces/${rw.ws.id}/sync`, {});
    expect(sync.status).toBe(200);
    expect(render()).toContain(`quire_git_sync_total{result="completed"} ${before + 1}\n`);
    const ws = await connect(rw.server, rw.owner);
    expect(render()).toContain("quire_ws_connections 1\n");
    ws.close();
  } finally {
    await rw.close();
  }
}, 60_000);

test("serve with a METRICS_PORT already taken refuses to start (exit 1), naming METRICS_PORT, and releases the data directory", async () => {
  const taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("other") });
  const dataDir = tempDir("quire-metrics-port-");
  try {
    const r = await runCli(["serve", "--port", "0", "--data-dir", dataDir], { env: { METRICS_PORT: String(taken.port) } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`quire: METRICS_PORT ${taken.port} could not listen on 127.0.0.1`);
    expect(isLocked(dataDir)).toBe(false);
  } finally {
    taken.stop(true);
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

test("the request histogram's buckets are cumulative, and each request is counted once under its status", async () => {
  const { Metrics, DURATION_BUCKETS } = await import("../../src/ops/metrics.ts");
  const m = new Metrics();
  for (const seconds of [0.0005, 0.0005, 0.003, 0.2, 11]) m.observeHttp("/p/*", "GET", 200, seconds);
  m.observeHttp("/p/*", "GET", 304, 0.0001);
  m.observeHttp("/p/*", "GET", "404", 0.0001);
  const text = m.render();
  const bucket = (le: string) => Number(new RegExp(`quire_http_request_duration_seconds_bucket\\{route="/p/\\*",method="GET",le="${le.replace(/[.+]/g, "\\$&")}"\\} (\\d+)`).exec(text)?.[1]);
  expect(bucket("0.001")).toBe(4);
  expect(bucket("0.005")).toBe(5);
  expect(bucket("0.1")).toBe(5);
  expect(bucket("0.25")).toBe(6);
  expect(bucket(String(DURATION_BUCKETS.at(-1)))).toBe(6);
  expect(bucket("+Inf")).toBe(7);
  expect(text).toContain('quire_http_request_duration_seconds_count{route="/p/*",method="GET"} 7');
  expect(text).toContain('quire_http_requests_total{route="/p/*",method="GET",status="200"} 5');
  expect(text).toContain('quire_http_requests_total{route="/p/*",method="GET",status="304"} 1');
  expect(text).toContain('quire_http_requests_total{route="/p/*",method="GET",status="404"} 1');
  expect(m.httpSeries).toBe(3);
});
