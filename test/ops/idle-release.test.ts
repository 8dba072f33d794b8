import { afterEach, expect, test } from "bun:test";
import { IdleRelease } from "../../src/ops/idle-release.ts";
import type { Logger } from "../../src/core/log.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";

const servers: TestServer[] = [];
const releasers: IdleRelease[] = [];
afterEach(async () => {
  for (const r of releasers.splice(0)) r.stop();
  for (const s of servers.splice(0)) await s.close();
});

/** An IdleRelease on a CPU clock the test moves, ticking every 10 ms. */
function controlled(opts: { onRelease?: (clock: { cpu: number }) => void } = {}) {
  const clock = { cpu: 0 };
  let count = 0;
  const r = new IdleRelease({
    tickMs: 10,
    quietMs: 40,
    busyCpuMs: 10,
    cpuMs: () => clock.cpu,
    release: () => {
      count++;
      opts.onRelease?.(clock);
    },
  });
  releasers.push(r);
  return { r, clock, count: () => count };
}

test("after a burst of work and a quiet spell it releases once, and again only after the next burst", async () => {
  const { r, clock, count } = controlled();
  r.start();
  // Start-up counts as a burst: one release once the process has been quiet long enough.
  await Bun.sleep(120);
  expect(count()).toBe(1);
  await Bun.sleep(120);
  expect(count()).toBe(1); // an idle server does nothing more

  // Work: CPU time moves on every tick for a while; nothing is released during it.
  const busy = setInterval(() => (clock.cpu += 50), 5);
  await Bun.sleep(150);
  clearInterval(busy);
  expect(count()).toBe(1);
  await Bun.sleep(150);
  expect(count()).toBe(2);
  expect(r.releases).toHaveLength(2);
  expect(r.releases[1]!.ms).toBeGreaterThanOrEqual(0);
});

test("each beforeRelease hook runs first at a release; one that fails is logged and the release goes on", async () => {
  const order: string[] = [];
  const warnings: string[] = [];
  const clock = { cpu: 0 };
  const log = { debug() {}, info() {}, error() {}, warn: (msg: string) => void warnings.push(msg) } as unknown as Logger;
  const r = new IdleRelease({ tickMs: 10, quietMs: 40, busyCpuMs: 10, cpuMs: () => clock.cpu, release: () => void order.push("release"), log });
  releasers.push(r);
  r.beforeRelease.add(() => void order.push("first hook"));
  r.beforeRelease.add(() => {
    throw new Error("closed database");
  });
  r.beforeRelease.add(() => void order.push("last hook"));
  r.start();
  await Bun.sleep(120);
  expect(order).toEqual(["first hook", "last hook", "release"]);
  expect(warnings).toEqual(["memory release failed"]);
});

test("the release's own CPU time is not taken for a new burst", async () => {
  // A release that costs far more CPU than the busy threshold (a full collection does).
  const { r, count } = controlled({ onRelease: (clock) => (clock.cpu += 500) });
  r.start();
  await Bun.sleep(400);
  expect(count()).toBe(1);
});

test("a little background CPU (timers, heartbeats) below the threshold keeps the server idle", async () => {
  const { r, clock, count } = controlled();
  r.start();
  await Bun.sleep(120);
  expect(count()).toBe(1);
  const trickle = setInterval(() => (clock.cpu += 1), 10);
  await Bun.sleep(200);
  clearInterval(trickle);
  expect(count()).toBe(1);
});

test("a real server releases memory once it goes quiet after requests, and serves normally afterwards", async () => {
  // The whole suite shares this process: collect what earlier files left behind first, so their garbage
  // collection is not the CPU that keeps this server from going quiet.
  Bun.gc(true);
  const server = await startTestServer();
  servers.push(server);
  const { client } = await registerUser(server.url);
  const me = await client.get("/api/auth/me");
  expect(me.status).toBe(200);

  // Default timing: a one-second tick, two quiet seconds (the deadline leaves room for a loaded machine).
  const deadline = Date.now() + 15_000;
  while (server.idleRelease.releases.length === 0 && Date.now() < deadline) await Bun.sleep(100);
  expect(server.idleRelease.releases.length).toBeGreaterThanOrEqual(1);
  const last = server.idleRelease.releases.at(-1)!;
  expect(last.rss_before_mb).toBeGreaterThan(0);
  expect(last.rss_after_mb).toBeGreaterThan(0);

  // Compiled code was thrown away; the same routes compile again and answer as before.
  const again = await client.get("/api/auth/me");
  expect(again.status).toBe(200);
  expect(again.body).toEqual(me.body);
  const workspaces = await client.get("/api/v1/workspaces");
  expect(workspaces.status).toBe(200);
  expect(workspaces.body.items.length).toBeGreaterThanOrEqual(1);
}, 15_000);

test("each server hands its SQLite page caches back at a release, and stops when it stops", async () => {
  const a = await startTestServer();
  servers.push(a);
  const { client } = await registerUser(a.url);
  const hooks = a.idleRelease.beforeRelease.size;
  expect(hooks).toBeGreaterThanOrEqual(1);
  const b = await startTestServer();
  servers.push(b);
  expect(b.idleRelease.beforeRelease.size).toBe(hooks + 1);
  // What a release runs (shrink_memory on quire.db and the search index) leaves both working.
  for (const hook of a.idleRelease.beforeRelease) hook();
  const workspaces = await client.get("/api/v1/workspaces");
  expect(workspaces.status).toBe(200);
  const search = await client.get(`/api/v1/workspaces/${workspaces.body.items[0].id}/search?q=welcome`);
  expect(search.status).toBe(200);
  await b.close();
  servers.splice(servers.indexOf(b), 1);
  expect(a.idleRelease.beforeRelease.size).toBe(hooks);
});

test("servers in one process share the timer: it stops with the last of them", async () => {
  const a = await startTestServer();
  const b = await startTestServer();
  servers.push(a, b);
  expect(a.idleRelease).toBe(b.idleRelease);
  expect(a.idleRelease.running).toBe(true);
  await a.close();
  servers.splice(servers.indexOf(a), 1);
  expect(b.idleRelease.running).toBe(true);
  await b.close();
  servers.splice(servers.indexOf(b), 1);
  expect(b.idleRelease.running).toBe(false);
});
