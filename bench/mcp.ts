/**
 * The MCP server's cost (DESIGN.md §11: compiled `quire mcp` start → tools/list answered < 300 ms;
 * a tool call adds < 1 ms p50 over the service it calls):
 * - start → tools/list of the compiled binary over stdio (a fresh process each time);
 * - read, search and update latency p50/p99: the service called in process, the REST API, MCP over
 *   Streamable HTTP (2026-07-28 and 2025 clients) and MCP over stdio (compiled binary);
 * - the size of tools/list in tokens (characters / 4).
 *
 * `bun bench/mcp.ts [iterations]`; QUIRE_BIN=<path> reuses a compiled binary instead of building one.
 */
import { rmSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/core/log.ts";
import { startServer } from "../src/server.ts";
import { contentAccess } from "../src/content/access.ts";
import { ms, percentile, printTable, REPO, timeEach, type Row } from "./harness.ts";

const N = Number(process.argv[2] ?? 300);
const work = mkdtempSync(join(tmpdir(), "quire-bench-mcp-"));
const dataDir = join(work, "data");

let binary = process.env.QUIRE_BIN;
if (!binary) {
  binary = join(work, "quire");
  console.log("building the executable…");
  const build = Bun.spawn(["bun", "run", "build", "--outfile", binary], { cwd: REPO, stdout: "ignore", stderr: "inherit" });
  if ((await build.exited) !== 0) throw new Error("build failed");
}

const env = { QUIRE_ENV: "development", ARGON2_MEMORY: "1024", ARGON2_TIME: "1", ARGON2_THREADS: "1", LOG_LEVEL: "warn" };
const config = loadConfig(env);
const server = await startServer({ config, dataDir, log: silentLogger, port: 0, hostname: "127.0.0.1" });
const { services } = server;
const base = server.url;
const json = { "content-type": "application/json" };
const reg = await (await fetch(`${base}/api/auth/register`, { method: "POST", headers: json, body: JSON.stringify({ name: "Bench", email: "bench@example.test", password: "correct horse battery staple", terms_accepted: true }) })).json();
const auth = { authorization: `Bearer ${reg.access_token}`, ...json };
const ws = (await (await fetch(`${base}/api/v1/workspaces`, { headers: auth })).json()).items[0];
const key: string = (await (await fetch(`${base}/api/v1/api-keys`, { method: "POST", headers: auth, body: JSON.stringify({ name: "bench", scopes: ["read", "write", "delete"] }) })).json()).key;
const bearer = { authorization: `Bearer ${key}`, ...json };
const PAGE = "bench/page.md";
const body = "# Bench page\n\nThe quick brown fox jumps over the lazy dog. ".repeat(40);
await fetch(`${base}/api/v1/content/${ws.slug}/${PAGE}`, { method: "POST", headers: bearer, body: JSON.stringify({ title: "Bench page", body }) });
await services.search.whenIndexed(ws.id);

const rows: Row[] = [];
const stat = (label: string, samples: number[], note = "") => {
  rows.push({ measure: `${label} p50`, value: ms(percentile(samples, 50)), note });
  rows.push({ measure: `${label} p99`, value: ms(percentile(samples, 99)) });
  return percentile(samples, 50);
};
// Writes are limited to 60 a minute per organization, like the API: the bench empties the counters.
const unlimited = (i: number) => {
  if (i % 40 === 0) services.rateLimiter.reset();
};

interface Caller {
  read(): Promise<unknown>;
  search(): Promise<unknown>;
  update(i: number): Promise<unknown>;
}

let hash = "";
const currentHash = () => services.ledger.read(contentAccess(services, { kind: "api_key", userId: reg.user.id, orgId: ws.org_id, keyId: "", scopes: ["read"], workspaceId: null }, ws.slug), PAGE).content_hash;

async function measure(label: string, caller: Caller, note = ""): Promise<{ read: number; search: number; update: number }> {
  for (let i = 0; i < 20; i++) await caller.read(); // warm-up
  hash = currentHash();
  const read = stat(`${label}: read`, await timeEach(N, async (i) => void (unlimited(i), await caller.read())), note);
  const search = stat(`${label}: search`, await timeEach(N, async (i) => void (unlimited(i), await caller.search())));
  const update = stat(`${label}: update`, await timeEach(Math.min(N, 200), async (i) => void (unlimited(i), await caller.update(i))));
  return { read, search, update };
}

const mcpCaller = (client: { callTool(r: { name: string; arguments: Record<string, unknown> }): Promise<{ isError?: boolean; structuredContent?: unknown; content: unknown }> }): Caller => ({
  read: () => client.callTool({ name: "quire_read_page", arguments: { workspace: ws.slug, path: PAGE } }),
  search: () => client.callTool({ name: "quire_search", arguments: { workspace: ws.slug, query: "quick fox" } }),
  update: async (i) => {
    const r = await client.callTool({ name: "quire_update_page", arguments: { workspace: ws.slug, path: PAGE, last_known_hash: hash, body: `${body}${i}` } });
    if (r.isError) throw new Error(JSON.stringify(r.content));
    hash = (r.structuredContent as { content_hash: string }).content_hash;
  },
});

// 1. The services themselves, in process (what a tool call adds to).
const principal = { kind: "api_key" as const, userId: reg.user.id, orgId: ws.org_id, keyId: "", scopes: ["read", "write"] as never, workspaceId: null };
const direct = await measure("service in process", {
  read: async () => services.ledger.read(contentAccess(services, principal, ws.slug, "MCP"), PAGE),
  search: async () => services.search.search(principal, ws.slug, { q: "quick fox", limit: 10 }),
  update: async (i) => {
    hash = (await services.ledger.update(contentAccess(services, principal, ws.slug, "MCP"), PAGE, { lastKnownHash: hash, body: `${body}${i}` })).page.content_hash;
  },
});

// 2. The REST API.
const rest = await measure("REST API", {
  read: () => fetch(`${base}/api/v1/content/${ws.slug}/${PAGE}`, { headers: bearer }).then((r) => r.arrayBuffer()),
  search: () => fetch(`${base}/api/v1/workspaces/${ws.id}/search?q=quick%20fox&limit=10`, { headers: bearer }).then((r) => r.arrayBuffer()),
  update: async (i) => {
    const r = await fetch(`${base}/api/v1/content/${ws.slug}/${PAGE}`, { method: "PUT", headers: bearer, body: JSON.stringify({ lastKnownHash: hash, body: `${body}${i}` }) });
    hash = ((await r.json()) as { content_hash: string }).content_hash;
  },
});

// 3. MCP over Streamable HTTP on the main port, both eras.
const modern = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } as never });
await modern.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
const httpModern = await measure("MCP HTTP 2026-07-28", mcpCaller(modern as never));
const tools = await modern.listTools();
const listChars = JSON.stringify(tools).length;
await modern.close();
const legacy = new LegacyClient({ name: "bench", version: "1" });
await legacy.connect(new LegacyHttp(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
const httpLegacy = await measure("MCP HTTP 2025", mcpCaller(legacy as never));
await legacy.close();
await server.stop(1000);

// 4. The compiled binary over stdio, alone on the data directory.
const stdioEnv = { ...env, PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATA_DIR: dataDir, QUIRE_API_KEY: key };
const starts: number[] = [];
for (let i = 0; i < 10; i++) {
  const t = performance.now();
  const c = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } as never });
  await c.connect(new StdioClientTransport({ command: binary!, args: ["mcp", "-w", ws.slug], env: stdioEnv, stderr: "ignore" }));
  await c.listTools();
  starts.push(performance.now() - t);
  await c.close();
  await Bun.sleep(100); // the previous process releases the lock as it exits
}
rows.push({ measure: "compiled quire mcp: start → tools/list p50", value: ms(percentile(starts, 50)), note: "budget < 300 ms" });
rows.push({ measure: "compiled quire mcp: start → tools/list max", value: ms(Math.max(...starts)) });
const stdio = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } as never });
await stdio.connect(new StdioClientTransport({ command: binary, args: ["mcp", "-w", ws.slug], env: stdioEnv, stderr: "ignore" }));
// stdio reads the hash through its own services: the in-process server above is stopped.
const stdioServices = { read: mcpCaller(stdio as never).read, search: mcpCaller(stdio as never).search };
for (let i = 0; i < 20; i++) await stdioServices.read();
const first = (await stdio.callTool({ name: "quire_read_page", arguments: { path: PAGE } })) as { structuredContent: { content_hash: string } };
hash = first.structuredContent.content_hash;
const stdioRead = stat("MCP stdio (compiled): read", await timeEach(N, async () => void (await stdioServices.read())));
const stdioSearch = stat("MCP stdio (compiled): search", await timeEach(N, async () => void (await stdioServices.search())));
const stdioUpdate = stat("MCP stdio (compiled): update", await timeEach(Math.min(N, 200), async (i) => void (await mcpCaller(stdio as never).update(i))));
await stdio.close();

rows.push({ measure: "tools/list size", value: `${Math.round(listChars / 4)} tokens`, note: `${listChars} characters, 26 tools` });
const added = (label: string, a: { read: number; search: number; update: number }, b: { read: number; search: number; update: number }) =>
  rows.push({ measure: `added p50 ${label}`, value: `${ms(a.read - b.read)} / ${ms(a.search - b.search)} / ${ms(a.update - b.update)}`, note: "read / search / update" });
added("MCP HTTP 2026 over REST", httpModern, rest);
added("MCP HTTP 2025 over REST", httpLegacy, rest);
added("MCP HTTP 2026 over service", httpModern, direct);
added("MCP stdio over service", { read: stdioRead, search: stdioSearch, update: stdioUpdate }, direct);
printTable(`MCP server (${N} calls each; updates ${Math.min(N, 200)})`, rows);
rmSync(work, { recursive: true, force: true });
process.exit(0);
