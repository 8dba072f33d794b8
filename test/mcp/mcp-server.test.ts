/**
 * `quire mcp-server` as a process of its own, and the official MCP Inspector CLI (pinned) as an
 * outside client: `tools/list --strict` exits 0 on both transports, a `tools/call` succeeds, a
 * bad key fails (exit 3 over HTTP).
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { CLI, cliEnv, REPO } from "../cli/spawn.ts";
import { createKey, httpClient, ok } from "./fixture.ts";
import { consentedCode, exchange, pkce, registerClient } from "../oauth/support.ts";

// Real processes and servers on a shared machine: allow for slow moments.
setDefaultTimeout(30_000);

let dataDir: string;
let owner: TestUser;
let key: string;
let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
let url: string;
/** An MCP access token the main server issued for this data directory (same BASE_URL, so the same audience). */
let oauthToken: string;
const BASE_URL = "http://quire.test";
const home = tempDir("quire-inspector-home-");

beforeAll(async () => {
  const server = await startTestServer({ BASE_URL }, { keepDir: true });
  owner = await registerUser(server.url);
  key = (await createKey(owner, ["read", "write", "delete"])).key;
  const redirect = "http://127.0.0.1:4567/callback";
  const clientId = await registerClient(server, [redirect]);
  const { verifier, challenge } = pkce();
  const { code } = await consentedCode(server, owner, { client_id: clientId, redirect_uri: redirect, code_challenge: challenge });
  oauthToken = (await exchange(server, clientId, redirect, code, verifier)).body.access_token;
  dataDir = server.dataDir;
  await server.close();
  proc = Bun.spawn([process.execPath, CLI, "mcp-server", "--addr", "127.0.0.1:0", "--cors-origins", "https://agent.example"], {
    env: cliEnv({ DATA_DIR: dataDir, BASE_URL }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`mcp-server did not start: ${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  url = /ready at (\S+)/.exec(out)![1]!;
}, 30_000);
afterAll(async () => {
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe("quire mcp-server", () => {
  test("takes API keys only: an MCP access token the main server issued is refused with the API-key challenge", async () => {
    expect(oauthToken).toBeString();
    const call = (token: string) =>
      fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    const refused = await call(oauthToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toStartWith('Bearer realm="quire"');
    expect((await call(key)).status).toBe(200);
  });

  test("serves /mcp on its own address for both eras; the Origin list holds", async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    for (const era of ["2026", "2025"] as const) {
      const client = await httpClient(url, key, era);
      const pages = await ok(client, "quire_list_pages", { workspace: owner.workspaceSlug });
      expect(pages.items.length).toBeGreaterThan(0);
      await client.close();
    }
    const post = (origin: string) =>
      fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream", origin },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
      });
    expect((await post("https://evil.example")).status).toBe(403);
    const listed = await post("https://agent.example");
    expect(listed.status).toBe(200);
    expect(listed.headers.get("access-control-allow-origin")).toBe("https://agent.example");
    expect((await fetch(url.replace("/mcp", "/nope"))).status).toBe(404);
  });
});

describe("the MCP Inspector CLI as an outside client", () => {
  async function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const p = Bun.spawn([join(REPO, "node_modules/.bin/mcp-inspector"), "--cli", ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, stdout, stderr };
  }
  const http = (k: string) => ["--server-url", url, "--transport", "http", "--header", `Authorization: Bearer ${k}`, "--stored-auth-only", "-q"];

  test("tools/list --strict exits 0 over Streamable HTTP and lists the 30 tools", async () => {
    const r = await inspector([...http(key), "--method", "tools/list", "--strict", "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.tools).toHaveLength(30);
  }, 30_000);

  test("tools/call succeeds; a bad key fails with exit 3", async () => {
    const call = await inspector([...http(key), "--method", "tools/call", "--tool-name", "quire_search", "--tool-args-json", JSON.stringify({ workspace: owner.workspaceSlug, query: "welcome" })]);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain("welcome.md");
    const bad = await inspector([...http("quire_live_wrong"), "--method", "tools/list"]);
    expect(bad.code).toBe(3);
  }, 30_000);

  test("tools/list --strict exits 0 over stdio against quire mcp (the data directory's own process)", async () => {
    // The HTTP server above holds this data directory, so stdio runs on a copy of its own.
    const copy = tempDir("quire-stdio-copy-");
    await Bun.$`cp -r ${dataDir}/. ${copy}`.quiet();
    rmSync(join(copy, "quire.lock"), { force: true });
    try {
      const r = await inspector([
        "--method", "tools/list", "--strict", "--format", "json", "-q", "--cwd", REPO,
        "-e", `DATA_DIR=${copy}`, "-e", `QUIRE_API_KEY=${key}`, "-e", "QUIRE_ENV=test",
        "--", process.execPath, CLI, "mcp", "-w", owner.workspaceSlug,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).result.tools).toHaveLength(30);
      const bad = await inspector(["--method", "tools/list", "-q", "--cwd", REPO, "-e", `DATA_DIR=${copy}`, "-e", "QUIRE_ENV=test", "--", process.execPath, CLI, "mcp", "-w", owner.workspaceSlug, "--api-key", "quire_live_wrong"]);
      expect(bad.code).not.toBe(0);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 40_000);
});
