import { createMcpHandler } from "@modelcontextprotocol/server";
import type { Principal } from "../core/principal.ts";
import { nowMs } from "../core/clock.ts";
import { MAX_BODY_BYTES } from "../core/net/body-limit.ts";
import type { Services } from "../services.ts";
import { allTools, buildMcpServer, type McpSession, type OneMessage } from "./server.ts";

/**
 * The message a 2026-07-28 request carries, from its `Mcp-Method` / `Mcp-Name` headers (required
 * in that era and checked against the body by the SDK before the server is built). A name sent
 * Base64-encoded, or anything unusual, is left out: the server is then built whole.
 */
function oneMessage(request: Request | undefined): OneMessage | undefined {
  const method = request?.headers.get("mcp-method")?.trim();
  if (!method) return undefined;
  const name = request?.headers.get("mcp-name")?.trim();
  return { method, name: name !== undefined && /^[A-Za-z0-9_.-]{1,128}$/.test(name) ? name : undefined };
}

/** The same request through the REST API, per category, so an agent and a script share one budget. */
const REST_EQUIVALENT = {
  content_read: ["GET", "/api/v1/content/_mcp/"],
  content_write: ["PUT", "/api/v1/content/_mcp/"],
  search: ["GET", "/api/v1/workspaces/_mcp/search"],
  ai_assist: ["POST", "/api/ai/assist"],
} as const;

export type McpHandler = ReturnType<typeof createMcpHandler>;

/**
 * The SDK's Streamable HTTP handler for `POST /mcp`, with a fresh server instance per request for
 * the key that sent it (http.ts). Its own module, loaded by the first MCP request: the SDK, the
 * server and its tools are not loaded with the routes.
 */
export function mcpHandler(services: Services, instructions: (principal: Principal) => string): McpHandler {
  return createMcpHandler(
    (ctx) => {
      const extra = ctx.authInfo?.extra as { principal: Principal; ip: string; message?: OneMessage };
      const session: McpSession = {
        services: () => services,
        log: services.log,
        assistConfigured: services.assist.configured,
        transport: "http",
        principal: () => extra.principal,
        rateLimit: (rule, principal) => {
          const [method, path] = REST_EQUIVALENT[rule];
          services.rateLimiter.hit(method, path, principal, extra.ip, nowMs(), true);
        },
      };
      return buildMcpServer(session, instructions(extra.principal), ctx.era === "modern" ? oneMessage(ctx.requestInfo) : extra.message);
    },
    {
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror: (error) => services.log.debug("mcp request refused", { error: error.message }),
    },
  );
}

/** The scope a tool needs over HTTP (undefined: no such tool), for the 403 `insufficient_scope` of an OAuth token. */
export function toolScope(name: string, assistConfigured: boolean): "read" | "write" | "delete" | "admin" | undefined {
  return allTools("http", assistConfigured).find((t) => t.name === name)?.scope;
}
