import { scopeGrants, type Principal } from "../core/principal.ts";
import { nowMs } from "../core/clock.ts";
import type { Services } from "../services.ts";
import type { OneMessage } from "./server.ts";
import type { McpHandler } from "./http-handler.ts";

/**
 * Streamable HTTP at `POST /mcp` (the main port and `quire mcp-server`): one endpoint for both
 * protocol eras — 2026-07-28 per-request exchanges and the 2025 era served statelessly — by the
 * SDK's createMcpHandler, with a fresh server instance per request for the key that sent it.
 * Authentication, the body limit and the per-IP floor run before this (src/http/core.ts); this
 * adds the Origin check, CORS, and per-tool rate limits in the REST API's categories.
 */
export interface McpHttpOptions {
  /** Browser origins allowed besides the server's own. */
  origins: string[];
  /** The server's own origin (BASE_URL's, or the mcp-server's address). */
  selfOrigin: string;
  /** Where the protected resource metadata is, when an authorization server issues tokens for this endpoint. */
  resourceMetadataUrl?: string;
}

/** Bodies up to this size are read ahead and handed to the SDK parsed. */
const PEEK_MAX_BYTES = 64 * 1024;
const utf8 = new TextDecoder();

/**
 * A small POST body with a declared length (every ordinary call) is read here, once, and handed
 * to the SDK parsed (its `parsedBody`, the documented way to give it a body already read): the
 * SDK otherwise clones the request and reads the clone's stream chunk by chunk, which cost a
 * save call most of a millisecond. Its one message, if it is one, also names what a 2025-era
 * request calls (the 2026-07-28 era names it in headers), so the server instance can hold just
 * what it can reach. Anything else — chunked, large, not JSON — goes on untouched, and the SDK
 * reads and answers it as before; a parsed body is checked by the SDK exactly as one it read.
 * With the body parsed, the request itself goes on, its body read: the SDK reads nothing from a
 * request it is given a parsed body with (as behind any body parser); only a body that is not
 * JSON is handed on again, byte for byte, in a new request.
 */
async function readAhead(request: Request): Promise<{ forward: Request; parsed?: unknown; message?: OneMessage }> {
  if (request.method !== "POST") return { forward: request };
  const declared = Number(request.headers.get("content-length") ?? "");
  if (!Number.isInteger(declared) || declared <= 0 || declared > PEEK_MAX_BYTES) return { forward: request };
  const bytes = await request.arrayBuffer();
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch {
    // Not JSON: the SDK reads it again and answers it.
    return { forward: new Request(request.url, { method: "POST", headers: request.headers, body: bytes, signal: request.signal }) };
  }
  const forward = request;
  let message: OneMessage | undefined;
  if (!request.headers.has("mcp-method")) {
    const m = parsed as { method?: unknown; params?: { name?: unknown } } | null;
    if (m !== null && typeof m === "object" && !Array.isArray(m) && typeof m.method === "string") {
      message = { method: m.method, name: typeof m.params?.name === "string" ? m.params.name : undefined };
    }
  }
  return message ? { forward, parsed, message } : { forward, parsed };
}

const ALLOWED_REQUEST_HEADERS = ["authorization", "content-type", "accept", "mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name", "last-event-id"];
const EXPOSED_HEADERS = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After, X-Request-Id";
const INSTRUCTIONS_TTL_MS = 30_000;

export function mcpHttp(services: Services, opts: McpHttpOptions) {
  const allowed = new Set([opts.selfOrigin, ...opts.origins]);
  const instructionsCache = new Map<string, { text: string; until: number }>();

  const instructions = (principal: Principal): string => {
    const key = principal.kind === "api_key" ? principal.keyId : principal.userId;
    const now = nowMs();
    const hit = instructionsCache.get(key);
    if (hit && hit.until > now) return hit.text;
    const { instructionsFor } = require("./instructions.ts") as typeof import("./instructions.ts");
    const text = instructionsFor(services, principal);
    if (instructionsCache.size > 1000) instructionsCache.clear();
    instructionsCache.set(key, { text, until: now + INSTRUCTIONS_TTL_MS });
    return text;
  };

  // The SDK, the MCP server and its tools are loaded by the first call (http-handler.ts), not
  // with the routes: a server nobody reaches over MCP never holds them.
  let handler: McpHandler | undefined;
  const handlerOf = (): McpHandler =>
    (handler ??= (require("./http-handler.ts") as typeof import("./http-handler.ts")).mcpHandler(services, instructions));

  /** Origin absent (not a browser) or on the list: allowed. */
  const originOk = (request: Request): boolean => {
    const origin = request.headers.get("origin");
    return origin === null || allowed.has(origin);
  };

  const cors = (request: Request): Record<string, string> => {
    const origin = request.headers.get("origin");
    if (origin === null || !allowed.has(origin)) return {};
    return { "access-control-allow-origin": origin, vary: "Origin", "access-control-expose-headers": EXPOSED_HEADERS };
  };

  /**
   * The scope an OAuth token lacks for the tool this request calls, or null. Such a call is refused
   * with HTTP 403 `insufficient_scope` naming the scope (MCP authorization, step-up), so the client
   * can ask the person for more; an API key gets the tool's own error result, as before.
   */
  const missingScope = (request: Request, principal: Principal, peeked: OneMessage | undefined): { needed: string; tool: string } | null => {
    if (!opts.resourceMetadataUrl || principal.kind !== "api_key" || principal.workspaceIds === undefined) return null;
    const method = request.headers.get("mcp-method")?.trim() ?? peeked?.method;
    const name = request.headers.get("mcp-name")?.trim() ?? peeked?.name;
    if (method !== "tools/call" || !name) return null;
    const { toolScope } = require("./http-handler.ts") as typeof import("./http-handler.ts");
    const needed = toolScope(name, services.assist.configured);
    if (needed === undefined || scopeGrants(principal.scopes, needed)) return null;
    return { needed, tool: name };
  };

  return {
    originOk,
    cors,
    /** CORS preflight: the methods and the MCP headers (incl. Mcp-Param-*) a browser client sends. */
    preflight(request: Request): Response {
      const asked = (request.headers.get("access-control-request-headers") ?? "")
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h !== "");
      const headers = asked.filter((h) => ALLOWED_REQUEST_HEADERS.includes(h) || /^mcp-param-[a-z0-9-]+$/.test(h));
      return new Response(null, {
        status: 204,
        headers: {
          ...cors(request),
          "access-control-allow-methods": "POST, GET, DELETE, OPTIONS",
          "access-control-allow-headers": [...new Set([...ALLOWED_REQUEST_HEADERS, ...headers])].join(", "),
          "access-control-max-age": "600",
        },
      });
    },
    /** `refuseScope` is called (and must throw) when an OAuth token lacks the scope of the tool called. */
    async handle(request: Request, principal: Principal, ip: string, refuseScope?: (missing: { needed: string; tool: string }) => never): Promise<Response> {
      const { forward, parsed, message } = await readAhead(request);
      const missing = refuseScope ? missingScope(request, principal, message) : null;
      if (missing) refuseScope!(missing);
      const extra = { principal, ip, ...(message ? { message } : {}) };
      const authInfo = { token: "", clientId: principal.userId, scopes: principal.kind === "api_key" ? principal.scopes : [], extra };
      const response = await handlerOf().fetch(forward, parsed === undefined ? { authInfo } : { authInfo, parsedBody: parsed });
      const extraHeaders = cors(request);
      // A JSON answer is complete when the handler resolves, a body of known length (the SDK's
      // Response.json): it goes out as it is, in one write, with the CORS headers added to it —
      // re-wrapping its body would send it as a chunked stream (milliseconds per call on
      // loopback), and copying it costs a buffer and a Response of every call.
      if ((response.headers.get("content-type") ?? "").includes("application/json")) {
        for (const [k, v] of Object.entries(extraHeaders)) response.headers.set(k, v);
        return response;
      }
      const headers = new Headers(response.headers);
      for (const [k, v] of Object.entries(extraHeaders)) headers.set(k, v);
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    },
    close: () => handler?.close(),
  };
}
