/**
 * What the MCP tests share: a real server, a user with API keys, and real MCP clients — the SDK's
 * 2.x client (2026-07-28) and its 1.x client (the 2025 era) — over Streamable HTTP or stdio.
 */
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { TestUser } from "../helpers/factories.ts";

export type Era = "2026" | "2025";

/** The calls the tests make, the same on both client generations. */
export interface McpClient {
  listTools(): Promise<{ tools: Array<{ name: string; annotations?: Record<string, unknown>; inputSchema: unknown; outputSchema?: unknown; title?: string; description?: string }> }>;
  callTool(req: { name: string; arguments?: Record<string, unknown> }): Promise<ToolResult>;
  listResources(): Promise<{ resources: Array<{ uri: string; name: string }> }>;
  readResource(req: { uri: string }): Promise<{ contents: Array<{ uri: string; text?: string }> }>;
  listPrompts(): Promise<{ prompts: Array<{ name: string }> }>;
  getPrompt(req: { name: string; arguments?: Record<string, string> }): Promise<{ messages: Array<{ content: { type: string; text?: string } }> }>;
  getInstructions(): string | undefined;
  close(): Promise<void>;
}

export interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: any;
  isError?: boolean;
}

export async function createKey(user: TestUser, scopes: string[], extra: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const res = await user.client.post("/api/v1/api-keys", { name: `key ${scopes.join("+")}`, scopes, ...extra });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return { id: res.body.id, key: res.body.key };
}

export async function httpClient(url: string, key: string, era: Era = "2026", headers: Record<string, string> = {}): Promise<McpClient> {
  const requestInit = { headers: { authorization: `Bearer ${key}`, ...headers } };
  if (era === "2026") {
    const client = new Client({ name: "quire-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } as never });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
    return client as unknown as McpClient;
  }
  const client = new LegacyClient({ name: "quire-test", version: "1.0.0" });
  await client.connect(new LegacyHttp(new URL(url), { requestInit }));
  return client as unknown as McpClient;
}

export async function stdioClient(cmd: string[], env: Record<string, string>, era: Era = "2026"): Promise<McpClient> {
  const [command, ...args] = cmd;
  if (era === "2026") {
    const client = new Client({ name: "quire-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } as never });
    await client.connect(new StdioClientTransport({ command: command!, args, env, stderr: process.env.QUIRE_TEST_LOGS ? "inherit" : "ignore" }));
    return client as unknown as McpClient;
  }
  const client = new LegacyClient({ name: "quire-test", version: "1.0.0" });
  await client.connect(new LegacyStdio({ command: command!, args, env, stderr: process.env.QUIRE_TEST_LOGS ? "inherit" : "ignore" }));
  return client as unknown as McpClient;
}

/** The text of a result's first content block. */
export const textOf = (r: ToolResult): string => r.content[0]?.text ?? "";

/** Calls a tool and insists it succeeded, returning its structured content. */
export async function ok(client: McpClient, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
  return r.structuredContent;
}

/** Calls a tool expecting an isError result (or a JSON-RPC error), returning its text. */
export async function refused(client: McpClient, name: string, args: Record<string, unknown> = {}): Promise<string> {
  try {
    const r = await client.callTool({ name, arguments: args });
    if (!r.isError) throw new Error(`${name} unexpectedly succeeded: ${textOf(r)}`);
    return textOf(r);
  } catch (error) {
    if ((error as Error).message.includes("unexpectedly succeeded")) throw error;
    return `JSON-RPC: ${(error as Error).message}`;
  }
}
