/**
 * What Quire takes from the MCP SDK beyond its public API, each checked here so that an SDK update
 * that changes it fails this file by name instead of quietly changing an answer.
 *
 * - sdkToolsCallHandler (src/mcp/server.ts): the SDK's stored `tools/call` handler, read through
 *   Protocol's protected `_getRequestHandler`. A hidden tool called by name is answered with the
 *   scope the key lacks; every other call goes on to that handler.
 */
import { expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { buildMcpServer, sdkToolsCallHandler, type McpSession } from "../../src/mcp/server.ts";
import { silentLogger } from "../../src/core/log.ts";

const SDK_VERSION = (require("@modelcontextprotocol/server/package.json") as { version: string }).version;

test("the SDK still hands out its stored tools/call handler", () => {
  const server = new McpServer({ name: "seam", version: "1" }, { capabilities: { tools: {} } });
  server.registerTool("echo", { description: "echo" }, () => ({ content: [] }));
  if (typeof sdkToolsCallHandler(server) !== "function") {
    throw new Error(
      `@modelcontextprotocol/server ${SDK_VERSION} no longer offers Protocol._getRequestHandler("tools/call"): sdkToolsCallHandler in src/mcp/server.ts needs another way to reach the SDK's handler, or a hidden tool called by name gets the SDK's bare "disabled"`,
    );
  }
});

test("a whole server (stdio's) names the missing scope for a hidden tool and leaves every other call to the SDK", async () => {
  // A read-only key's session. Nothing here reaches the services: a hidden tool is refused first,
  // an unknown one by the SDK.
  const session: McpSession = {
    services: () => {
      throw new Error("no services needed");
    },
    log: silentLogger,
    assistConfigured: false,
    transport: "stdio",
    principal: () => ({ kind: "api_key", userId: "u", orgId: "o", keyId: "k", scopes: ["read"], workspaceId: null }),
    fixedWorkspace: "docs",
  };
  const server = buildMcpServer(session, "");
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "seam", version: "1" });
  await client.connect(clientSide);
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("quire_write_page");
    const hidden = await client.callTool({ name: "quire_write_page", arguments: { path: "x", body: "y" } });
    expect(hidden.isError).toBe(true);
    const text = (hidden.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain("scopes (read) do not allow quire_write_page, which needs the write scope");
    expect(text).not.toContain("disabled");
    const unknown = await client.callTool({ name: "quire_no_such_tool", arguments: {} }).then(
      (r) => JSON.stringify(r),
      (e: Error) => e.message,
    );
    expect(unknown).toContain("quire_no_such_tool not found");
  } finally {
    await client.close();
    await server.close();
  }
});

test("an instance built for one tool call declares the capabilities a whole instance does, as the SDK completes them", () => {
  const session: McpSession = {
    services: () => {
      throw new Error("no services needed");
    },
    log: silentLogger,
    assistConfigured: false,
    transport: "http",
    principal: () => ({ kind: "api_key", userId: "u", orgId: "o", keyId: "k", scopes: ["read"], workspaceId: null }),
  };
  const whole = buildMcpServer(session, "").server.getCapabilities();
  const oneCall = buildMcpServer(session, "", { method: "tools/call", name: "quire_read_page" }).server.getCapabilities();
  // If the SDK completes declared capabilities differently, CALL_ONLY_CAPABILITIES in src/mcp/server.ts must follow.
  expect(oneCall).toEqual(whole);
  expect(Object.keys(oneCall).sort()).toEqual(["prompts", "resources", "tools"]);
});
