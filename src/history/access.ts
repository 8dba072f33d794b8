import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { Users } from "../identity/users.ts";
import type { ContentAccess } from "../content/rights.ts";
import type { Origin } from "../content/committed-write.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";

/**
 * The caller's rights for history requests, which name the workspace by id or slug (the
 * `/workspaces/:id/…` routes): 404 when they cannot read it, as for its pages.
 */
export function historyAccess(deps: { permissions: Permissions; users: Users; restrictions: Restrictions }, principal: Principal, ref: string, origin?: Origin): ContentAccess {
  const { workspace, role } = deps.permissions.require(principal, workspaceRef(ref), "viewer");
  const user = deps.users.byId(principal.userId);
  return {
    workspace,
    role,
    visibility: deps.restrictions.visibility(workspace, user?.email_normalized ?? "", role),
    actor: { id: principal.userId, name: user?.name ?? "" },
    origin: origin ?? (principal.kind === "api_key" ? "API" : "web editor"),
  };
}
