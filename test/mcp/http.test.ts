/**
 * `POST /mcp` as an HTTP endpoint: both protocol eras on one URL, who may call what (scopes ∩ role,
 * organizations, revoked and expired keys mid-session), Origin and CORS, the body limit, 401s —
 * and the tools/list snapshot (names, schemas, annotations) committed beside this file.
 */
import { afterAll, beforeAll, describe, expect, setSystemTime, test, setDefaultTimeout } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { createKey, httpClient, ok, refused, textOf, type McpClient } from "./fixture.ts";

// Real processes and servers on a shared machine: allow for slow moments.
setDefaultTimeout(30_000);

let server: TestServer;
let owner: TestUser;
let url: string;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ MCP_CORS_ORIGINS: "https://agent.example" });
  owner = await registerUser(server.url);
  url = `${server.url}/mcp`;
  key = (await createKey(owner, ["read", "write", "delete"])).key;
});
afterAll(() => server.close());

const SNAPSHOT = join(import.meta.dir, "tools-list.snapshot.json");

describe("both protocol eras on one endpoint", () => {
  for (const era of ["2026", "2025"] as const) {
    test(`${era} client: 30 tools with title, output schema and all four annotations; a call works`, async () => {
      const client = await httpClient(url, key, era);
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(30);
      for (const t of tools) {
        expect(t.name).toMatch(/^quire_[a-z_]+$/);
        expect(t.title).toBeString();
        expect(t.outputSchema).toBeObject();
        expect(Object.keys(t.annotations ?? {}).sort()).toEqual(["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"]);
      }
      expect(client.getInstructions()).toContain(owner.workspaceSlug);
      const pages = await ok(client, "quire_list_pages", {});
      expect(pages.items.length).toBeGreaterThan(0);
      const prompts = await client.listPrompts();
      expect(prompts.prompts.map((p) => p.name)).toEqual(["improve", "shorten", "expand", "fix_grammar", "summarize", "translate"]);
      const prompt = await client.getPrompt({ name: "translate", arguments: { text: "Hallo", language: "French" } });
      expect(prompt.messages[0]!.content.text).toContain("Translate the text into French");
      const resources = await client.listResources();
      const welcome = resources.resources.find((r) => r.uri === `quire://${owner.workspaceSlug}/welcome.md`)!;
      expect(welcome).toBeDefined();
      const read = await client.readResource({ uri: welcome.uri });
      expect(read.contents[0]!.text).toContain("Welcome");
      for (const trick of ["..%2F..%2Fquire.db", "../../quire.db", ".git/config", "%252e%252e/x"]) {
        await expect(client.readResource({ uri: `quire://${owner.workspaceSlug}/${trick}` }), trick).rejects.toThrow();
      }
      await expect(client.readResource({ uri: "quire://someone-elses/welcome.md" })).rejects.toThrow(/not found/i);
      await client.close();
    });
  }

  test("tools/list matches the committed snapshot (names, titles, schemas, annotations) and stays small", async () => {
    const client = await httpClient(url, key);
    const { tools } = await client.listTools();
    await client.close();
    const current = JSON.stringify(tools, null, 2) + "\n";
    if (process.env.UPDATE_MCP_SNAPSHOT === "1") writeFileSync(SNAPSHOT, current);
    expect(current).toBe(readFileSync(SNAPSHOT, "utf8"));
    // docs/architecture.md §12: the whole list is measured in tokens (characters / 4); it must stay small.
    expect(JSON.stringify(tools).length / 4).toBeLessThan(8_500);
  });

  test("the workspace argument is advertised as a plain string and still checked as a slug", async () => {
    const client = await httpClient(url, key);
    const { tools } = await client.listTools();
    const arg = (tools.find((t) => t.name === "quire_list_pages")!.inputSchema as { properties: Record<string, unknown> }).properties.workspace;
    expect(arg).toEqual({ type: "string", description: "Workspace slug (default: the only one)" });
    expect(await refused(client, "quire_list_pages", { workspace: "Not A Slug" })).toContain("must be lowercase letters, digits and hyphens");
    expect(await refused(client, "quire_list_pages", { workspace: "x".repeat(65) })).toContain("must be at most 64 characters");
    expect((await ok(client, "quire_list_pages", { workspace: ` ${owner.workspaceSlug} ` })).items.length).toBeGreaterThan(0);
    await client.close();
  });
});

describe("who may call what", () => {
  test("a read-only key sees only read-only tools and a write tool called by name is refused", async () => {
    const readOnly = await httpClient(url, (await createKey(owner, ["read"])).key);
    const { tools } = await readOnly.listTools();
    expect(tools.length).toBeGreaterThan(10);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(tools.map((t) => t.name)).not.toContain("quire_write_page");
    // Refused by name, the answer names the scope the key lacks (not the SDK's bare "disabled").
    for (const [name, scope] of [["quire_write_page", "write"], ["quire_update_page", "write"], ["quire_delete_page", "delete"], ["quire_add_comment", "write"]] as const) {
      const text = await refused(readOnly, name, { path: "welcome", body: "pwned", title: "x" });
      expect(text).toContain(`scopes (read) do not allow ${name}, which needs the ${scope} scope`);
      expect(text).toContain('"error":"FORBIDDEN"');
    }
    expect((await ok(readOnly, "quire_read_page", { path: "welcome" })).content).not.toContain("pwned");
    await readOnly.close();
  });

  test("a key with delete but not write sees delete and not write", async () => {
    const client = await httpClient(url, (await createKey(owner, ["delete"])).key);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("quire_delete_page");
    expect(names).not.toContain("quire_write_page");
    await client.close();
  });

  test("the key's owner's role bounds it: a viewer's full-scope key reads but cannot write", async () => {
    const viewer = await registerUser(server.url);
    const invite = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/share-links`, { role: "viewer" });
    expect(invite.status).toBe(201);
    expect((await viewer.client.post(`/api/v1/share-links/${invite.body.token}/use`)).status).toBeLessThan(300);
    // The viewer's key of their own organization does not reach the owner's workspace (keys stay in their organization).
    const own = await httpClient(url, (await createKey(viewer, ["read", "write"])).key);
    const outsider = await refused(own, "quire_read_page", { workspace: owner.workspaceSlug, path: "welcome" });
    expect(outsider).toContain("Workspace not found");
    expect(outsider).toContain("quire_list_workspaces");
    await own.close();
  });

  test("a key of another organization naming this workspace gets not found, never the page", async () => {
    const stranger = await registerUser(server.url);
    const client = await httpClient(url, (await createKey(stranger, ["read", "write", "delete", "admin"])).key);
    const calls: Array<[string, Record<string, unknown>]> = [
      ["quire_read_page", { path: "welcome" }],
      ["quire_write_page", { path: "welcome", body: "pwned" }],
      ["quire_get_workspace", {}],
      ["quire_list_pages", {}],
      ["quire_search", { query: "welcome" }],
      ["quire_add_comment", { path: "welcome", body: "pwned" }],
    ];
    for (const [name, args] of calls) {
      const text = await refused(client, name, { workspace: owner.workspaceSlug, ...args });
      expect(text, name).toContain("Workspace not found");
    }
    await client.close();
  });

  test("a key revoked mid-session stops at the next request; an expired one too", async () => {
    const revoked = await createKey(owner, ["read"]);
    const client = await httpClient(url, revoked.key);
    await ok(client, "quire_list_pages", {});
    expect((await owner.client.delete(`/api/v1/api-keys/${revoked.id}`)).status).toBe(204);
    await expect(client.callTool({ name: "quire_list_pages", arguments: {} })).rejects.toThrow();

    const expiring = await createKey(owner, ["read"], { expires_at: Math.floor(Date.now() / 1000) + 60 });
    const later = await httpClient(url, expiring.key);
    await ok(later, "quire_list_pages", {});
    setSystemTime(new Date(Date.now() + 120_000));
    try {
      await expect(later.callTool({ name: "quire_list_pages", arguments: {} })).rejects.toThrow();
    } finally {
      setSystemTime();
    }
  });
});

describe("HTTP edges", () => {
  const rpc = (headers: Record<string, string>, body: string) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });
  const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

  test("no key, a garbage key or a session token: 401 with WWW-Authenticate and the error shape", async () => {
    for (const authorization of [undefined, "Bearer quire_live_notakey", "Basic abc", `Bearer ${owner.accessToken}`]) {
      const res = await rpc(authorization ? { authorization } : {}, list);
      expect(res.status).toBe(401);
      // The endpoint is an OAuth protected resource: the challenge names its metadata (src/oauth/).
      expect(res.headers.get("www-authenticate")).toStartWith(`Bearer resource_metadata="${server.config.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
      expect(((await res.json()) as { error: string }).error).toBe("UNAUTHORIZED");
    }
  });

  test("a JSON answer goes out whole, with its length, and a listed origin's CORS headers", async () => {
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
    const call = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "quire_read_page", arguments: { path: "welcome" }, _meta: meta } });
    const res = await rpc({ authorization: `Bearer ${key}`, origin: "https://agent.example", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "quire_read_page" }, call);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("transfer-encoding")).toBeNull();
    const text = await res.text();
    expect(Number(res.headers.get("content-length"))).toBe(new TextEncoder().encode(text).length);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://agent.example");
    expect(res.headers.get("access-control-expose-headers")).toContain("Mcp-Protocol-Version");
    expect(JSON.parse(text).result.structuredContent.path).toBe("welcome.md");
  });

  test("an Origin not on the list is refused (403); the server's own and listed origins get CORS headers", async () => {
    const evil = await rpc({ authorization: `Bearer ${key}`, origin: "https://evil.example" }, list);
    expect(evil.status).toBe(403);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    const preflightEvil = await fetch(url, { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
    expect(preflightEvil.status).toBe(403);

    const preflight = await fetch(url, {
      method: "OPTIONS",
      headers: { origin: "https://agent.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, mcp-protocol-version, mcp-param-path" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://agent.example");
    const allowed = preflight.headers.get("access-control-allow-headers")!;
    for (const h of ["authorization", "mcp-protocol-version", "mcp-session-id", "mcp-param-path"]) expect(allowed).toContain(h);

    const agent = await httpClient(url, key, "2026", { origin: "https://agent.example" });
    await ok(agent, "quire_list_pages", {});
    await agent.close();
    const own = await rpc({ authorization: `Bearer ${key}`, origin: new URL(server.config.baseUrl).origin }, list);
    expect(own.status).toBe(200);
    expect(own.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
  });

  test("a 20 MB JSON-RPC body is refused with 413 before it is read; so is a chunked one", async () => {
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "quire_write_page", arguments: { path: "huge", body: "h".repeat(20 * 1024 * 1024) } } });
    const res = await rpc({ authorization: `Bearer ${key}` }, huge);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe("PAYLOAD_TOO_LARGE");
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 21; i++) c.enqueue(new Uint8Array(1024 * 1024).fill(32));
        c.close();
      },
    });
    const chunked = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: chunks });
    expect(chunked.status).toBe(413);
    const client = await httpClient(url, key);
    expect(await refused(client, "quire_read_page", { path: "huge" })).toContain("not found");
    await client.close();
  });

  test("tool calls count against the REST API's limits of the same kind (60 writes a minute per organization)", async () => {
    server.services.rateLimiter.reset();
    const client = await httpClient(url, key);
    let limited = "";
    for (let i = 0; i < 61 && !limited; i++) {
      const r = await client.callTool({ name: "quire_update_page", arguments: { path: "welcome", last_known_hash: `sha256:${"0".repeat(64)}`, body: "x" } });
      if (textOf(r).includes("RATE_LIMITED")) limited = textOf(r);
    }
    expect(limited).toContain("Too many requests: retry in");
    // Reads have their own, larger budget.
    await ok(client, "quire_read_page", { path: "welcome" });
    server.services.rateLimiter.reset();
    await client.close();
  });
});

describe("one message per request", () => {
  /**
   * One JSON-RPC POST, in the 2026-07-28 era (headers and envelope), the 2025 era (stateless), or
   * the 2025 era padded past 64 KiB with trailing blanks (too large to be read ahead: the server
   * builds its whole instance); the answer's JSON.
   */
  async function post(era: "2026" | "2025" | "2025 padded", apiKey: string, method: string, params: Record<string, unknown>, name?: string): Promise<any> {
    const modern = era === "2026";
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (modern) Object.assign(headers, { "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name ? { "mcp-name": name } : {}) });
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
    const body = { jsonrpc: "2.0", id: 7, method, params: modern ? { ...params, _meta: meta } : params };
    const sent = JSON.stringify(body) + (era === "2025 padded" ? " ".repeat(70 * 1024) : "");
    const text = await (await fetch(url, { method: "POST", headers, body: sent })).text();
    const data = text.trim().startsWith("{") ? text : text.split("\n").filter((l) => l.startsWith("data:")).pop()!.slice(5);
    return JSON.parse(data);
  }
  const comparable = (answer: any) => (answer.error ? { error: { code: answer.error.code, message: answer.error.message } } : { result: { isError: answer.result.isError, content: answer.result.content } });

  test("a body read ahead is answered as one the SDK reads itself: not JSON, null, a batch, a notification, in both eras", async () => {
    const raw = async (modern: boolean, body: string) => {
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
      if (modern) Object.assign(headers, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" });
      const res = await fetch(url, { method: "POST", headers, body });
      return { status: res.status, body: (await res.text()).replace(/"id":\s*"?[\w-]+"?/g, '"id":_') };
    };
    const bodies = ["{not json", "null", "[]", JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]), JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), JSON.stringify({ jsonrpc: "1.0", id: 2, method: "tools/list" })];
    for (const modern of [true, false]) {
      for (const body of bodies) {
        // Past 64 KiB (trailing blanks, the same JSON) the SDK reads the body itself.
        const itself = await raw(modern, body + " ".repeat(70 * 1024));
        expect(await raw(modern, body), `${modern ? "2026" : "2025"} ${body}`).toEqual(itself);
      }
    }
  });

  test("a request whose one message is known is answered exactly as by the whole server: a call, an unknown tool, a refused one", async () => {
    const readOnly = (await createKey(owner, ["read"])).key;
    const cases: Array<[string, string, Record<string, unknown>]> = [
      [key, "quire_read_page", { path: "welcome" }],
      [key, "quire_no_such_tool", {}],
      [key, "quire_read_page", { path: "welcome", unknown: 1 }],
      [readOnly, "quire_write_page", { path: "welcome", body: "pwned" }],
    ];
    for (const [apiKey, name, args] of cases) {
      const whole = comparable(await post("2025 padded", apiKey, "tools/call", { name, arguments: args }));
      expect(comparable(await post("2026", apiKey, "tools/call", { name, arguments: args }, name)), name).toEqual(whole);
      expect(comparable(await post("2025", apiKey, "tools/call", { name, arguments: args })), name).toEqual(whole);
    }
    expect((await post("2026", key, "tools/call", { name: "quire_read_page", arguments: { path: "welcome" } }, "quire_read_page")).result.structuredContent.path).toBe("welcome.md");
    // Resources and prompts, each in a request of its own.
    const resources = await post("2026", key, "resources/list", {});
    expect(resources.result.resources.map((r: { uri: string }) => r.uri)).toContain(`quire://${owner.workspaceSlug}/welcome.md`);
    expect((await post("2026", key, "prompts/list", {})).result.prompts).toHaveLength(6);
    expect((await post("2026", key, "tools/list", {})).result.tools).toHaveLength(30);
    expect((await post("2025", key, "prompts/list", {})).result.prompts).toHaveLength(6);
    expect((await post("2025", key, "tools/list", {})).result.tools).toHaveLength(30);
  });
});
