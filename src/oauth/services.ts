import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { Users } from "../identity/users.ts";
import type { SigningKeys } from "../identity/signing-key.ts";
import { ClientMetadataDocuments } from "./client-metadata.ts";
import { OAuthClients } from "./clients.ts";
import { Grants } from "./grants.ts";
import { McpAccessTokens } from "./access-tokens.ts";
import { OAuthService } from "./oauth-service.ts";

/** The MCP authorization server (src/oauth/): built on the first OAuth or MCP request that needs it. */
export interface OAuthServices {
  oauth: OAuthService;
}

export function buildOAuthServices(deps: {
  db: Db;
  config: Config;
  signingKeys: () => Promise<SigningKeys>;
  permissions: Permissions;
  workspaces: WorkspaceRecords;
  users: Users;
  membersOnlySite(slug: string): { workspaceId: string; name: string } | null;
}): OAuthServices {
  const { db, config } = deps;
  const baseUrl = config.baseUrl.replace(/\/+$/, "");
  const clients = new OAuthClients(db, new ClientMetadataDocuments(config.oauthClientMetadataAllowPrivate));
  const oauth = new OAuthService({
    db,
    baseUrl,
    clients,
    grants: new Grants(db),
    tokens: new McpAccessTokens(deps.signingKeys, baseUrl, `${baseUrl}/mcp`),
    permissions: deps.permissions,
    workspaces: deps.workspaces,
    users: deps.users,
    membersOnlySite: deps.membersOnlySite,
  });
  return { oauth };
}
