/**
 * `bun bench/http-core.ts`: what the shared HTTP plumbing (request id, client address, credential,
 * scope gate, rate limits, headers, request log) costs per request, measured in-process through
 * app.handle() so the network is out of the picture. A bare Elysia app with the same route is the
 * baseline; the difference is our own code. Not a test: numbers vary by machine.
 */
import { Elysia } from "elysia";
import { rmSync } from "node:fs";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/core/log.ts";
import { createApp } from "../src/app.ts";
import { buildServices } from "../src/services.ts";
import { tempDir, TEST_ENV } from "../test/helpers/server.ts";

const N = 20_000;
const ROUNDS = 5;

async function perRequestUs(handle: (r: Request) => Promise<Response>, make: () => Request): Promise<number> {
  for (let i = 0; i < 2000; i++) await (await handle(make())).arrayBuffer(); // warm up
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await (await handle(make())).arrayBuffer();
    rounds.push(((performance.now() - t0) * 1000) / N);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!; // median round
}

const dir = tempDir("quire-bench-");
const lines: string[] = [];
const services = await buildServices({ config: loadConfig({ ...TEST_ENV }), dataDir: dir, log: createLogger({ write: (l) => lines.push(l) }) });
const payload = { user: { id: "x" } };
const app = createApp(services).get("/api/bench-me", ({ principal }) => ({ user: { id: principal?.userId } }));
const bare = new Elysia().get("/api/bench-me", () => payload);

// A real account, a session token and an API key, made through the app itself.
const reg = await app.handle(
  new Request("http://localhost/api/auth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", email: "bench@example.test", password: "bench password 123", terms_accepted: true }),
  }),
);
const token = ((await reg.json()) as { access_token: string }).access_token;
const keyRes = await app.handle(
  new Request("http://localhost/api/v1/api-keys", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: "{}",
  }),
);
const apiKey = ((await keyRes.json()) as { key: string }).key;

const get = (auth?: string) => () => new Request("http://localhost/api/bench-me", auth ? { headers: { authorization: `Bearer ${auth}` } } : {});
const handle = (a: { handle(r: Request): Promise<Response> }) => (r: Request) => a.handle(r);

// Anonymous requests from one address meet the per-IP floor (600/min) long before a round ends:
// empty the counters every 500 requests so the figure is an accepted request's cost, floor
// counting included, not a 429's.
let anonymousSent = 0;
const anonymous = () => {
  if (++anonymousSent % 500 === 0) services.rateLimiter.reset();
  return get()();
};

const baseline = await perRequestUs(handle(bare), get());
const anon = await perRequestUs(handle(app), anonymous);
const session = await perRequestUs(handle(app), get(token));
const key = await perRequestUs(handle(app), get(apiKey));
lines.length = 0;

console.log(`per request, median of ${ROUNDS} rounds of ${N} (in-process app.handle):`);
console.log(`  bare Elysia route                 ${baseline.toFixed(1)} µs`);
console.log(`  Quire, anonymous                  ${anon.toFixed(1)} µs  (+${(anon - baseline).toFixed(1)} µs ours)`);
console.log(`  Quire, session JWT                ${session.toFixed(1)} µs  (+${(session - baseline).toFixed(1)} µs ours)`);
console.log(`  Quire, API key                    ${key.toFixed(1)} µs  (+${(key - baseline).toFixed(1)} µs ours)`);

// Without the verified-token cache every request pays the RS256 check.
const t0 = performance.now();
for (let i = 0; i < 2000; i++) await services.tokens.verify(token);
console.log(`  RS256 verification alone (avoided by the cache)  ${(((performance.now() - t0) * 1000) / 2000).toFixed(1)} µs`);

// Every service's timers and watchers stop (the same closers a server runs), so the script exits.
await services.closeAll();
rmSync(dir, { recursive: true, force: true });
