/**
 * The MCP conformance suite (@modelcontextprotocol/conformance, its own client) against Quire's two
 * MCP endpoints: a published site's `/p/{slug}/mcp` (no sign-in) and the workspace endpoint `/mcp`
 * (an API key, added by a loopback forwarder: the suite's client sends no credentials). The server
 * scenarios that apply to a product — initialize, ping, tools, resources, prompts, JSON Schema 2020-12
 * and DNS rebinding — run; the results expected to fail are committed in
 * conformance/expected-failures.yaml with the reason, and any other outcome fails this test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { publish, writePage } from "../publish/site/support.ts";
import { createKey } from "./fixture.ts";

const SUITE = join(import.meta.dir, "../../node_modules/@modelcontextprotocol/conformance/dist/index.js");
const SCENARIOS = ["server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "json-schema-2020-12", "dns-rebinding-protection"];
const EXPECTED = Bun.YAML.parse(readFileSync(join(import.meta.dir, "conformance/expected-failures.yaml"), "utf8")) as Record<string, string[]>;

let server: TestServer;
let owner: TestUser;
let forwarder: ReturnType<typeof Bun.serve>;
const out = mkdtempSync(join(tmpdir(), "quire-conformance-"));

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  await writePage(owner, "guides/intro.md", { title: "Intro", body: "The zebrafish guide." });
  await publish(owner);
  const key = (await createKey(owner, ["read"])).key;
  // Forwards every request as a reverse proxy would, adding the key: its own address in Host and
  // Origin becomes the server's BASE_URL, any other (the rebinding scenario's) is passed on as it came.
  const own = new URL(server.services.config.baseUrl);
  forwarder = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const url = new URL(req.url);
      const headers = new Headers(req.headers);
      headers.set("authorization", `Bearer ${key}`);
      // (The request's URL is built from its Host header: compare with the address it listens on.)
      const self = `127.0.0.1:${forwarder.port}`;
      if (headers.get("host") === self) headers.set("host", own.host);
      if (headers.get("origin") === `http://${self}`) headers.set("origin", own.origin);
      const res = await fetch(`${server.url}${url.pathname}${url.search}`, { method: req.method, headers, body: req.body, redirect: "manual" });
      return new Response(res.body, { status: res.status, headers: res.headers });
    },
  });
}, 30_000);
afterAll(async () => {
  forwarder?.stop(true);
  await server?.close();
  rmSync(out, { recursive: true, force: true });
});

/** Each scenario's checks' statuses, from the suite's own result files. */
async function run(name: string, url: string): Promise<Record<string, string[]>> {
  const results: Record<string, string[]> = {};
  for (const scenario of SCENARIOS) {
    const dir = join(out, name, scenario);
    const p = Bun.spawn([process.execPath, SUITE, "server", "--url", url, "--scenario", scenario, "-o", dir], { stdout: "pipe", stderr: "pipe" });
    await p.exited;
    const [folder] = readdirSync(dir);
    const checks = JSON.parse(readFileSync(join(dir, folder!, "checks.json"), "utf8")) as Array<{ status: string }>;
    results[scenario] = checks.map((c) => c.status);
  }
  return results;
}

const failing = (results: Record<string, string[]>) => Object.keys(results).filter((s) => results[s]!.some((status) => status === "FAILURE"));

describe("the MCP conformance suite", () => {
  test("a published site's /p/{slug}/mcp", async () => {
    const results = await run("site", `${server.url}/p/${owner.workspaceSlug}/mcp`);
    expect(failing(results)).toEqual(EXPECTED.site!);
    for (const s of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) expect(results[s]!.every((status) => status === "SUCCESS")).toBe(true);
  }, 60_000);

  test("the workspace endpoint /mcp with an API key", async () => {
    const results = await run("workspace", `http://127.0.0.1:${forwarder.port}/mcp`);
    expect(failing(results)).toEqual(EXPECTED.workspace!);
    for (const s of ["server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"]) expect(results[s]!.every((status) => status === "SUCCESS")).toBe(true);
  }, 60_000);
});
