import { UnauthorizedError } from "../core/errors.ts";
import type { Principal } from "../core/principal.ts";

/** The caller, or 401 when the request carried no usable credential. */
export function requirePrincipal(principal: Principal | null): Principal {
  if (!principal) throw new UnauthorizedError();
  return principal;
}

/**
 * Routes that manage the account itself (sessions, logout, ws-token, API keys) need a signed-in
 * session, not an API key.
 */
export function requireSession(principal: Principal | null): Extract<Principal, { kind: "session" }> {
  const p = requirePrincipal(principal);
  if (p.kind !== "session") throw new UnauthorizedError("This endpoint needs a signed-in session");
  return p;
}
