import { resolve } from "node:path";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { UnauthorizedError } from "../core/errors.ts";
import { VERSION } from "../version.ts";
import { registerPrompts } from "./prompts.ts";
import { allTools, toolInput, toolOutput } from "./server.ts";
import type { ToolDef } from "./tool.ts";

/**
 * `quire mcp` beside a running `serve` on the same data directory (docs/architecture.md §4: only one process
 * writes): the tools, their schemas and the prompts are the same as in-process, but every call is
 * sent to the running server's `POST /mcp` over loopback with the same API key, where the server's
 * own services run it. Each forwarded message is a plain stateless JSON-RPC POST (the 2025 era,
 * which the endpoint serves without a session).
 */
export class RemoteMcp {
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly key: string,
  ) {}

  async rpc<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const response = await fetch(this.url, {
      method: "POST",
      headers: { authorization: `Bearer ${this.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method, params }),
    });
    if (response.status === 401) throw new UnauthorizedError("The API key is not valid (unknown, revoked or expired)");
    const text = await response.text();
    const message = parseAnswer(text);
    if (!response.ok && message === null) throw new Error(`the running server answered HTTP ${response.status} at ${this.url}`);
    if (message === null) throw new Error("the running server's answer could not be read");
    if (message.error) throw Object.assign(new Error(message.error.message), { code: message.error.code });
    return message.result as T;
  }
}

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string };
}

/** A JSON body, or the last `data:` event of an SSE stream. */
function parseAnswer(text: string): RpcAnswer | null {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith("{")) return JSON.parse(trimmed) as RpcAnswer;
  } catch {
    return null;
  }
  let last: RpcAnswer | null = null;
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    try {
      const msg = JSON.parse(line.slice(5).trim()) as RpcAnswer & { id?: unknown };
      if ("result" in msg || "error" in msg) last = msg;
    } catch {
      // keep-alives and partial lines are not answers
    }
  }
  return last;
}

/**
 * Checks the key and the workspace against the running server and returns a factory of local
 * servers whose tools forward. Tools the key may not use (absent from the server's list) are
 * disabled here too.
 */
export async function remoteServer(remote: RemoteMcp, slug: string): Promise<() => McpServer> {
  const init = await remote.rpc<{ instructions?: string }>("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "quire-mcp-stdio", version: VERSION },
  });
  const listed = await remote.rpc<{ tools: Array<{ name: string; annotations?: { openWorldHint?: boolean } }> }>("tools/list");
  const visible = new Set(listed.tools.map((t) => t.name));
  const assistConfigured = listed.tools.find((t) => t.name === "quire_writing_assist")?.annotations?.openWorldHint === true;
  // The workspace must be reachable with this key, as in-process.
  const check = await remote.rpc<{ isError?: boolean; content?: Array<{ text?: string }> }>("tools/call", { name: "quire_get_workspace", arguments: { workspace: slug } });
  if (check.isError) throw new Error(check.content?.[0]?.text?.split("\n")[0] ?? `workspace ${slug} is not reachable`);
  const instructions = (init.instructions ?? "").replace(/This key reaches [^.]*\.( Name one with the workspace argument\.)?/, `This server serves the workspace ${slug}.`);
  return () => {
    const server = new McpServer({ name: "quire", title: "Quire", version: VERSION }, { instructions, capabilities: { tools: { listChanged: false }, resources: {}, prompts: {} } });
    for (const tool of allTools("stdio", assistConfigured)) {
      const input = toolInput(tool);
      const registered = server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: input, outputSchema: toolOutput(tool), annotations: tool.annotations },
        (args: unknown) => forward(remote, tool, slug, (args ?? {}) as Record<string, unknown>),
      );
      if (!visible.has(tool.name)) registered.disable();
    }
    server.registerResource(
      "page",
      new ResourceTemplate("quire://{workspace}/{+path}", { list: () => remote.rpc("resources/list") as never }),
      { title: "Page", description: "A page's Markdown content", mimeType: "text/markdown" },
      (uri) => remote.rpc("resources/read", { uri: uri.href }) as never,
    );
    registerPrompts(server);
    return server;
  };
}

/**
 * quire_export with `output` beside a running server: the server prepares the ZIP (its own checks
 * and daily allowance) and hands out a download URL, which is fetched over loopback into the file.
 */
async function exportToFile(remote: RemoteMcp, args: Record<string, unknown>, output: string) {
  const { output: _file, ...rest } = args;
  const prepared = await remote.rpc<{ isError?: boolean; content: Array<{ type: "text"; text: string }>; structuredContent?: { url: string; pages: number; bytes: number } }>("tools/call", { name: "quire_export", arguments: rest });
  if (prepared.isError || !prepared.structuredContent) return prepared;
  const download = new URL(prepared.structuredContent.url);
  const local = new URL(download.pathname, remote.url);
  const response = await fetch(local);
  if (!response.ok) return { content: [{ type: "text" as const, text: `The export was prepared but its download failed (HTTP ${response.status}); try again.` }], isError: true };
  const file = resolve(output);
  await Bun.write(file, response);
  const result = { pages: prepared.structuredContent.pages, bytes: prepared.structuredContent.bytes, output: file };
  return { content: [{ type: "text" as const, text: JSON.stringify(result) }], structuredContent: result };
}

async function forward(remote: RemoteMcp, tool: ToolDef, slug: string, args: Record<string, unknown>) {
  if (tool.workspace && args.workspace !== undefined && args.workspace !== slug) {
    return { content: [{ type: "text" as const, text: `Invalid input: workspace: this MCP server serves the workspace "${slug}" only.` }], isError: true };
  }
  const body = tool.workspace ? { ...args, workspace: slug } : args;
  if (tool.name === "quire_export" && typeof args.output === "string") return exportToFile(remote, body, args.output);
  try {
    return await remote.rpc<{ content: Array<{ type: "text"; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean }>("tools/call", { name: tool.name, arguments: body });
  } catch (error) {
    const text =
      error instanceof UnauthorizedError
        ? "The API key is no longer valid (revoked, expired or deleted). Create a new key under Settings → API keys and restart the MCP client with it."
        : `The running Quire server could not run ${tool.name}: ${(error as Error).message}`;
    return { content: [{ type: "text" as const, text }], isError: true };
  }
}
