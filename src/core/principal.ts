/**
 * Who is calling. Transports build one from a credential (JWT session or API key) and pass it to
 * services, which decide with src/access/permissions.ts what it may do.
 */
export const API_KEY_SCOPES = ["read", "write", "delete", "admin", "admin:read"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export type Principal =
  | { kind: "session"; userId: string; orgId: string; sessionId: string }
  | {
      kind: "api_key";
      userId: string;
      orgId: string;
      keyId: string;
      scopes: ApiKeyScope[];
      /** A key may be limited to one workspace. */
      workspaceId: string | null;
      /**
       * An MCP client authorized by OAuth acts as its person through a key-like principal, limited
       * to the workspaces the person consented to (src/oauth/).
       */
      workspaceIds?: readonly string[];
    };

type HttpMethodClass = "read" | "write" | "delete";

export function methodClass(method: string): HttpMethodClass {
  const m = method.toUpperCase();
  if (m === "GET" || m === "HEAD" || m === "OPTIONS") return "read";
  if (m === "DELETE") return "delete";
  return "write";
}

/** Whether scopes grant what a tool or request needs: the `admin` scope only by itself, else as scopesAllow. */
export function scopeGrants(scopes: readonly ApiKeyScope[], needed: HttpMethodClass | "admin"): boolean {
  return needed === "admin" ? scopes.includes("admin") : scopesAllow(scopes, needed);
}

/** Whether a key's scopes allow this kind of request at all (the role check still follows). */
export function scopesAllow(scopes: readonly ApiKeyScope[], cls: HttpMethodClass): boolean {
  if (scopes.includes("admin")) return true;
  if (cls === "read") return scopes.some((s) => s === "read" || s === "write" || s === "delete" || s === "admin:read");
  return scopes.includes(cls);
}
