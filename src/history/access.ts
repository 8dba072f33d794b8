import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { Users } from "../identity/users.ts";
import type { ContentAccess } from "../content/rights.ts";
import type { Origin } from "../content/committed-write.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";

/**
 * The caller's rights for history requests, which name the workspace by id or slug (the
 * `/workspaces/:id/…` routes): 404 when they cannot read it, as for its pages.
 */
export function historyAccess(deps: { permissions: Permissions; users: Users }, principal: Principal, ref: string, origin?: Origin): ContentAccess {
  const { workspace, role } = deps.permissions.require(principal, workspaceRef(ref), "viewer");
  return {
    workspace,
    role,
    actor: { id: principal.userId, name: deps.users.byId(principal.userId)?.name ?? "" },
    origin: origin ?? (principal.kind === "api_key" ? "API" : "web editor"),
  };
}
