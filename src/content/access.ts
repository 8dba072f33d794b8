import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { Users } from "../identity/users.ts";
import type { ContentAccess } from "./rights.ts";
import type { Origin } from "./committed-write.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";

/**
 * Turns a caller into a ContentAccess: the workspace (by slug), the caller's role in it (404 when
 * they cannot read it) and the actor named in records and events. Transports pass their origin:
 * a signed-in session is the web editor, an API key the API, the MCP server says MCP.
 */
export function contentAccess(
  deps: { permissions: Permissions; users: Users; restrictions: Restrictions },
  principal: Principal,
  workspaceSlug: string,
  origin?: Origin,
): ContentAccess {
  const { workspace, role } = deps.permissions.require(principal, { slug: workspaceSlug }, "viewer");
  const user = deps.users.byId(principal.userId);
  return {
    workspace,
    role,
    visibility: deps.restrictions.visibility(workspace, user?.email_normalized ?? "", role),
    ruleKeys: deps.restrictions.ruleKeys(workspace),
    actor: { id: principal.userId, name: user?.name ?? "" },
    origin: origin ?? (principal.kind === "api_key" ? "API" : "web editor"),
  };
}
