import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { EmailOutbox } from "../mail/email-outbox.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import { signingKeysOnDemand, type KeyFileDigestStore, type SigningKeys } from "./signing-key.ts";
import { AccessTokens } from "./access-tokens.ts";
import { createPasswordHasher, dummyHashInDatabase, type PasswordHasher } from "./passwords.ts";
import { Sessions } from "./sessions.ts";
import { Users } from "./users.ts";
import { Organizations } from "./organizations.ts";
import { AuthService } from "./auth-service.ts";
import { ApiKeys } from "./api-keys.ts";
import { apiKeyPepper, keyWorkspaceOrg, type RoleLookup } from "./api-key-setup.ts";
import { PasswordResets } from "./password-resets.ts";
import { PasswordChange } from "./password-change.ts";

/**
 * Who is calling: accounts, organizations, sessions and tokens, passwords, API keys. Every request
 * authenticates with these, so they are built at start; external sign-in and passkeys are built on
 * first use (identity/sign-in-services.ts).
 */
export interface IdentityServices {
  users: Users;
  organizations: Organizations;
  sessions: Sessions;
  tokens: AccessTokens;
  /** The instance key every token is signed with (the MCP authorization server's access tokens too), loaded on first use. */
  signingKeys: () => Promise<SigningKeys>;
  passwords: PasswordHasher;
  auth: AuthService;
  passwordResets: PasswordResets;
  passwordChange: PasswordChange;
  apiKeys: ApiKeys;
}

export async function buildIdentityServices(deps: {
  db: Db;
  config: Config;
  dataDir: string;
  email: EmailOutbox;
  workspaces: WorkspaceRecords;
  permissions: RoleLookup;
}): Promise<IdentityServices> {
  const { db, config, dataDir, workspaces, permissions } = deps;
  const sessions = new Sessions(db);
  const keys = await signingKeysOnDemand(config.jwtKeyPath ?? join(dataDir, "jwt-private.pem"), keyFileDigestInDatabase(db), (loaded) => {
    sessions.retireIfSigningKeyChanged(loaded.kid);
  });
  const tokens = new AccessTokens(keys, config.baseUrl);
  const passwords = createPasswordHasher(config.argon2, dummyHashInDatabase(db));
  const users = new Users(db);
  const organizations = new Organizations(db);
  const auth = new AuthService({ db, config, users, organizations, sessions, tokens, passwords, workspaces });
  return {
    users,
    organizations,
    sessions,
    tokens,
    signingKeys: keys,
    passwords,
    auth,
    passwordResets: new PasswordResets({ db, users, sessions, passwords, mailer: deps.email, baseUrl: config.baseUrl }),
    passwordChange: new PasswordChange({ db, users, sessions, passwords }),
    apiKeys: new ApiKeys(db, apiKeyPepper(config, dataDir), keyWorkspaceOrg(workspaces, permissions)),
  };
}

/** The digest of the key file last loaded, in the instance table beside the key id it gave (`jwt_kid`). */
function keyFileDigestInDatabase(db: Db): KeyFileDigestStore {
  return {
    load: () => db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'jwt_key_file_sha256'").get()?.value ?? null,
    save: (digest) => {
      db.query("INSERT INTO instance (key, value) VALUES ('jwt_key_file_sha256', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(digest);
    },
  };
}
