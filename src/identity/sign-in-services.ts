import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { InvitationHooks } from "./oidc-accounts.ts";
import type { Users } from "./users.ts";
import type { AuthService } from "./auth-service.ts";
import type { PasswordHasher } from "./passwords.ts";
import { Identities } from "./identities.ts";
import { OidcAccounts } from "./oidc-accounts.ts";
import { OidcService } from "./oidc-service.ts";
import { enabledProviders } from "./oidc-providers.ts";
import { SignInMethods } from "./sign-in-methods.ts";
import { Passkeys } from "./passkeys.ts";

/**
 * External sign-in (OpenID Connect, GitHub) and passkeys (WebAuthn), with the account's list of
 * sign-in methods. Built on the first request that needs them (src/services.ts), so an instance
 * whose people sign in with a password never loads the OIDC and WebAuthn code.
 */
export interface SignInServices {
  identities: Identities;
  oidc: OidcService;
  signInMethods: SignInMethods;
  passkeys: Passkeys;
}

export function buildSignInServices(deps: {
  db: Db;
  config: Config;
  log: Logger;
  users: Users;
  auth: AuthService;
  passwords: PasswordHasher;
  invitations: InvitationHooks;
}): SignInServices {
  const { db, config, log, users, auth } = deps;
  const identities = new Identities(db);
  const accounts = new OidcAccounts({ db, config, users, identities, auth, invitations: deps.invitations });
  const oidc = new OidcService({ db, config, log, users, auth, accounts, providers: enabledProviders(config) });
  const signInMethods = new SignInMethods({ db, users, identities, passwords: deps.passwords, providers: () => oidc.list() });
  const passkeys = new Passkeys({ db, config: config.webauthn, log, users, auth, methods: signInMethods });
  return { identities, oidc, signInMethods, passkeys };
}
