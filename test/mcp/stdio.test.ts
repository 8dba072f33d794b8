/**
 * `quire mcp` as local agents run it: a real child process on stdin/stdout, driven by the SDK's
 * clients of both protocol eras. Alone on its data directory it holds the lock and runs the
 * services; beside a running `serve` it works through that server. stdout carries JSON-RPC only.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { startTestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { tryGit } from "../helpers/git-remote.ts";
import { isLocked } from "../../src/ops/instance-lock.ts";
import { CLI, cliEnv, runCli, startServe, type ServeProcess } from "../cli/spawn.ts";
import { Client } from "../helpers/client.ts";
import { createKey, ok, refused, stdioClient, textOf } from "./fixture.ts";

// Real processes and servers on a shared machine: allow for slow moments.
setDefaultTimeout(30_000);

let dataDir: string;
let owner: TestUser;
let key: { id: string; key: string };
let env: Record<string, string>;

beforeAll(async () => {
  const server = await startTestServer({}, { keepDir: true });
  owner = await registerUser(server.url);
  key = await createKey(owner, ["read", "write", "delete"]);
  dataDir = server.dataDir;
  await server.close();
  env = cliEnv({ DATA_DIR: dataDir, QUIRE_API_KEY: key.key });
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const mcpCmd = (slug = owner.workspaceSlug, extra: string[] = []) => [process.execPath, CLI, "mcp", "-w", slug, ...extra];

describe("alone on the data directory", () => {
  test("2026 client: tools, a write and a read; the process holds the lock while it runs", async () => {
    const client = await stdioClient(mcpCmd(), env, "2026");
    expect((await client.listTools()).tools).toHaveLength(30);
    expect(isLocked(dataDir)).toBe(true);
    expect(client.getInstructions()).toContain(`slug ${owner.workspaceSlug}`);
    const page = await ok(client, "quire_write_page", { path: "stdio/one", body: "Written over stdio.\n" });
    expect(page.path).toBe("stdio/one.md");
    expect((await ok(client, "quire_read_page", { path: "/stdio/one" })).content).toBe("Written over stdio.\n");
    expect(await refused(client, "quire_read_page", { path: "stdio/one", workspace: "another" })).toContain(`serves the workspace "${owner.workspaceSlug}" only`);
    // Over stdio the export may go straight into a file.
    const zip = join(dataDir, "..", `${owner.workspaceSlug}-${Date.now()}.zip`);
    const exported = await ok(client, "quire_export", { output: zip });
    expect(exported).toMatchObject({ output: zip, pages: expect.any(Number) });
    const bytes = new Uint8Array(await Bun.file(zip).arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0x50, 0x4b]); // "PK"
    expect(bytes.length).toBe(exported.bytes);
    rmSync(zip);
    await client.close();
    for (let i = 0; i < 100 && isLocked(dataDir); i++) await Bun.sleep(20);
    expect(isLocked(dataDir)).toBe(false);
  }, 30_000);

  test("2025 client with --api-key: the same tools; a key revoked mid-session is refused at the next call", async () => {
    const revocable = await (async () => {
      const server = await startTestServer({}, { dataDir, keepDir: true });
      const signedIn = new Client(server.url);
      signedIn.token = (await signedIn.post("/api/auth/login", { email: owner.email, password: owner.password })).body.access_token;
      const k = await createKey({ ...owner, client: signedIn }, ["read"]);
      await server.close();
      return k;
    })();
    const client = await stdioClient(mcpCmd(owner.workspaceSlug, ["--api-key", revocable.key]), cliEnv({ DATA_DIR: dataDir }), "2025");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("quire_read_page");
    expect(names).not.toContain("quire_write_page");
    await ok(client, "quire_search", { query: "stdio" });
    // Another process may add or remove a row while the MCP server runs (SQLite serializes writers).
    const db = new Database(join(dataDir, "quire.db"));
    db.query("DELETE FROM api_keys WHERE id = ?").run(revocable.id);
    db.close();
    expect(await refused(client, "quire_list_pages", {})).toContain("no longer valid");
    await client.close();
  }, 30_000);

  test("garbage lines on stdin get JSON-RPC errors and the server keeps answering; stdout holds JSON-RPC only", async () => {
    const proc = Bun.spawn(mcpCmd(), { env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const init = { jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
    proc.stdin.write('not json\n{"jsonrpc":"2.0"}\n[1,2]\n{"id":3,"method":42}\n');
    proc.stdin.write(JSON.stringify(init) + "\n");
    proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    proc.stdin.write('{"jsonrpc":"2.0","id":8,"method":"tools/list"}\n');
    proc.stdin.flush();
    const reader = proc.stdout.getReader();
    let out = "";
    while (!out.includes('"id":8')) out += new TextDecoder().decode((await reader.read()).value);
    proc.stdin.end();
    const lines = out.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringContaining("Parse error") } });
    expect(lines.slice(1, 4).map((l) => l.error.code)).toEqual([-32600, -32600, -32600]);
    expect(lines[3].id).toBe(3);
    expect(lines[4]).toMatchObject({ id: 7, result: { serverInfo: { name: "quire" } } });
    expect(lines[5].result.tools).toHaveLength(30);
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stderr).text()).toContain('"msg":"serving MCP"');
  }, 30_000);

  test("refusals at start: no key (2), a bad key (1), an unknown workspace (1); nothing on stdout", async () => {
    const none = await runCli(["mcp", "-w", owner.workspaceSlug], { env: { DATA_DIR: dataDir } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("an API key is required");
    const bad = await runCli(["mcp", "-w", owner.workspaceSlug, "--api-key", "quire_live_nope"], { env: { DATA_DIR: dataDir } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("the API key is not valid");
    expect(bad.stdout).toBe("");
    const lost = await runCli(["mcp", "-w", "no-such-space"], { env: { DATA_DIR: dataDir, QUIRE_API_KEY: key.key } });
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain('workspace "no-such-space" does not exist or this API key cannot reach it');
    expect(lost.stdout).toBe("");
  }, 30_000);
});

describe("beside a running serve", () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(dataDir);
  }, 30_000);
  afterAll(async () => {
    serve.proc.kill("SIGTERM");
    await serve.exited;
  });

  test("works through the server: its writes are the server's (commit via MCP), and mcp-server refuses naming /mcp", async () => {
    const client = await stdioClient(mcpCmd(), env, "2026");
    expect((await client.listTools()).tools).toHaveLength(30);
    const page = await ok(client, "quire_write_page", { path: "beside/one", title: "Beside", body: "Through the server.\n" });
    // The running server sees the page at once: the write happened in its process.
    const viaApi = await new Client(serve.base).request("GET", `/api/v1/content/${owner.workspaceSlug}/beside/one.md`, { token: key.key });
    expect(viaApi.body.content_hash).toBe(page.content_hash);
    const wsDir = join(dataDir, "workspaces", owner.workspaceId);
    let subject = "";
    for (let i = 0; i < 100 && subject !== "Create beside/one.md via MCP"; i++) {
      subject = (await tryGit(["log", "-1", "--format=%s"], { cwd: wsDir })).stdout.trim();
      await Bun.sleep(50);
    }
    expect(subject).toBe("Create beside/one.md via MCP");
    const resource = await client.readResource({ uri: `quire://${owner.workspaceSlug}/beside/one.md` });
    expect(resource.contents[0]!.text).toBe("Through the server.\n");
    expect(textOf(await client.callTool({ name: "quire_get_tree", arguments: { workspace: "elsewhere" } }))).toContain("only");
    await client.close();

    // The API key screen's stdio snippet names the running executable: following it starts a working server.
    const web = new Client(serve.base);
    web.token = (await web.post("/api/auth/login", { email: owner.email, password: owner.password })).body.access_token;
    const snippet = (await web.get("/api/v1/mcp/client-config")).body;
    expect(snippet).toEqual({ command: process.execPath, args: [CLI], http_url: expect.stringMatching(/\/mcp$/) });
    expect((await new Client(serve.base).request("GET", "/api/v1/mcp/client-config", { token: key.key })).status).toBe(401);
    const fromSnippet = await stdioClient([snippet.command, ...snippet.args, "mcp", "--workspace", owner.workspaceSlug], env, "2025");
    expect((await fromSnippet.listTools()).tools).toHaveLength(30);
    await fromSnippet.close();

    const refusedServer = await runCli(["mcp-server", "--addr", "127.0.0.1:0"], { env: { DATA_DIR: dataDir } });
    expect(refusedServer.code).toBe(1);
    expect(refusedServer.stderr).toContain("/mcp serves MCP");
  }, 30_000);
});
