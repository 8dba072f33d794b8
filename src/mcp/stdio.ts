import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { McpServer } from "@modelcontextprotocol/server";
import type { Principal } from "../access/principal.ts";
import { UnauthorizedError } from "../core/errors.ts";
import type { Services } from "../services.ts";
import { contentAccess } from "../content/access.ts";
import { instructionsFor } from "./instructions.ts";
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

/** The principal of an API key, checked now: null when unknown, revoked or expired. */
export function keyPrincipal(services: Services, key: string): Principal | null {
  return services.apiKeys.authenticate(key, Math.floor(Date.now() / 1000));
}

/**
 * `quire mcp` alone on its data directory: the services are in this process. The key is checked
 * again on every call, so revoking it ends the session's rights at once.
 */
export function localSession(services: Services, key: string, slug: string): { session: McpSession; instructions: string } {
  const principal = () => {
    const p = keyPrincipal(services, key);
    if (p === null) throw new UnauthorizedError("The API key is not valid (unknown, revoked or expired)");
    return p;
  };
  const now = principal();
  // The workspace must exist for this key now (404 otherwise), so a typo fails at start, not at the first call.
  contentAccess(services, now, slug, "MCP");
  return { session: { services, transport: "stdio", principal, fixedWorkspace: slug }, instructions: instructionsFor(services, now, slug) };
}

export function localServer(services: Services, key: string, slug: string): () => McpServer {
  const { session, instructions } = localSession(services, key, slug);
  return () => buildMcpServer(session, instructions);
}
