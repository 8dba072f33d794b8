import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../core/log.ts";
import { migrate, openDatabase, type Db } from "../db/database.ts";
import { ApiKeys } from "../identity/api-keys.ts";
import { apiKeyPepper, keyWorkspaceOrg } from "../identity/api-key-setup.ts";
import { Users } from "../identity/users.ts";
import { Permissions } from "../access/permissions.ts";
import { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import { PageRecords } from "../content/page-records.ts";

/**
 * What `quire mcp` needs before its first tool call: the database, the API key check, the
 * workspace and the caller's role in it, and the page count the instructions name. The handshake
 * and `tools/list` are answered from this alone; the other services (git, search, publishing,
 * sign-in, …) are built on the first call that needs them, on the same database connection.
 */
export interface LocalCore {
  config: Config;
  log: Logger;
  dataDir: string;
  db: Db;
  apiKeys: ApiKeys;
  users: Users;
  workspaces: WorkspaceRecords;
  permissions: Permissions;
  pages: PageRecords;
}

export function openLocalCore(opts: { config: Config; dataDir: string; log: Logger }): LocalCore {
  const { config, dataDir, log } = opts;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(dataDir, "quire.db"));
  try {
    migrate(db);
    const workspaces = new WorkspaceRecords(db);
    const permissions = new Permissions(db, workspaces);
    const apiKeys = new ApiKeys(db, apiKeyPepper(config, dataDir), keyWorkspaceOrg(workspaces, permissions));
    return { config, log, dataDir, db, apiKeys, users: new Users(db), workspaces, permissions, pages: new PageRecords(db) };
  } catch (error) {
    db.close();
    throw error;
  }
}
