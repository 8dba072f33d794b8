import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Config } from "../config.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../workspaces/workspace-records.ts";

/**
 * How API keys are wired to the rest of an instance, in one place for `buildServices` and for
 * `quire mcp`, which checks its key before the other services exist.
 */

/**
 * The pepper keys are hashed with: API_KEY_PEPPER, or outside production a random one kept in the
 * data directory (mode 0600), so keys keep working across restarts of the same instance.
 */
export function apiKeyPepper(config: Pick<Config, "apiKeyPepper">, dataDir: string): string {
  if (config.apiKeyPepper) return config.apiKeyPepper;
  const path = join(dataDir, "api-key-pepper");
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  const pepper = randomBytes(32).toString("hex");
  writeFileSync(path, pepper, { mode: 0o600 });
  return pepper;
}

/**
 * Whether a person has a role in a workspace (the access layer's permission check, which sits
 * above identity: identity names only what it asks of it).
 */
export interface RoleLookup {
  roleIn(userId: string, workspace: WorkspaceRow): unknown;
}

/** A key limited to one workspace belongs to that workspace's organization while its owner has a role there. */
export function keyWorkspaceOrg(workspaces: WorkspaceRecords, permissions: RoleLookup) {
  return (userId: string, workspaceId: string): string | null => {
    const ws = workspaces.byId(workspaceId);
    return ws !== null && permissions.roleIn(userId, ws) !== null ? ws.org_id : null;
  };
}
