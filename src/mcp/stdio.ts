import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { McpServer } from "@modelcontextprotocol/server";
import { UnauthorizedError } from "../core/errors.ts";
import type { Services } from "../services.ts";
import { contentAccess } from "../content/access.ts";
import { workspaceInstructions } from "./instructions.ts";
import type { LocalCore } from "./local-core.ts";
import { buildMcpServer, type McpSession } from "./server.ts";
import { guardedStdin } from "./stdio-lines.ts";

/**
 * Serves MCP on stdin/stdout (stdout carries JSON-RPC only; logs go to stderr) from a server
 * factory; resolves when the client closes stdin. `onMessage` sees each message's method first.
 */
export function serveOnStdio(
  factory: () => McpServer | Promise<McpServer>,
  onError: (error: Error) => void,
  onMessage?: (method: string | undefined) => void,
): Promise<void> {
  return new Promise((resolve) => {
    const stdin = guardedStdin(process.stdin, (line) => void process.stdout.write(line), onMessage);
    const handle = serveStdio(factory, { transport: new StdioServerTransport(stdin, process.stdout), onerror: onError });
    stdin.on("end", () => void handle.close().finally(resolve));
  });
}

/**
 * `quire mcp` alone on its data directory: the services run in this process, built by `services`
 * on the first call that needs them. The key is checked now (a bad key or workspace fails at
 * start, not at the first call) and again on every call, so revoking it ends the session's rights
 * at once.
 */
function localSession(core: LocalCore, services: () => Promise<Services>, key: string, slug: string): { session: McpSession; instructions: string } {
  const principal = () => {
    const p = core.apiKeys.authenticate(key, Math.floor(Date.now() / 1000));
    if (p === null) throw new UnauthorizedError("The API key is not valid (unknown, revoked or expired)");
    return p;
  };
  // The workspace must exist for this key now (404 otherwise), so a typo fails at start, not at the first call.
  core.permissions.require(principal(), { slug }, "viewer");
  const session: McpSession = {
    services,
    log: core.log,
    assistConfigured: core.config.ai !== undefined,
    transport: "stdio",
    principal,
    fixedWorkspace: slug,
  };
  return { session, instructions: workspaceInstructions({ workspaces: core.workspaces, pageCount: (id) => core.pages.liveCount(id) }, slug) };
}

export function localServer(core: LocalCore, services: () => Promise<Services>, key: string, slug: string): () => McpServer {
  const { session, instructions } = localSession(core, services, key, slug);
  return () => buildMcpServer(session, instructions);
}
