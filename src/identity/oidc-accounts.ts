import type { Db } from "../db/database.ts";
import type { Config } from "../config.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import type { AuthService } from "./auth-service.ts";
import type { Identities } from "./identities.ts";
import type { ProviderId, ProviderIdentity } from "./oidc-providers.ts";
import type { UserRow, Users } from "./users.ts";

/** Why an external sign-in found no account to sign in; the app explains each code. */
type AccountRefusal = "email_unverified" | "no_email" | "signup_disabled" | "already_linked" | "provider_linked";

export class AccountRefused extends Error {
  constructor(readonly reason: AccountRefusal, message: string) {
    super(message);
  }
}

/** What sign-up asks of the access layer's invitations (above identity). */
export interface InvitationHooks {
  hasPendingFor(email: string): boolean;
  acceptPendingFor(userId: string, email: string, now: string): () => void;
}

/**
 * Which account an external identity signs in to (docs/architecture.md §14):
 * - a known (provider, subject) signs in to its account;
 * - linking from the profile adds the identity to the signed-in account;
 * - an unknown identity whose verified email matches an account is linked to it; an unverified
 *   one is refused with a message to sign in and link from the profile (an unverified address
 *   proves nothing, and accepting it would hand the account to whoever typed it at the provider);
 * - otherwise a new account is made (own organization, no password) — only for a verified email
 *   (docs/decisions/sign-in.md), and in invite-only mode only when a pending invitation names it.
 */
export class OidcAccounts {
  constructor(
    private readonly deps: { db: Db; config: Config; users: Users; identities: Identities; auth: AuthService; invitations: InvitationHooks },
  ) {}

  async resolve(provider: ProviderId, who: ProviderIdentity, linkUserId: string | null): Promise<UserRow> {
    const { db, users, identities } = this.deps;
    const now = isoFromMs(nowMs());
    const known = identities.find(provider, who.subject);
    if (linkUserId !== null) {
      if (known && known.user_id !== linkUserId) {
        throw new AccountRefused("already_linked", "This account at the provider is already linked to another Quire account.");
      }
      if (!known) {
        if (identities.ofUser(linkUserId).some((i) => i.provider === provider)) {
          throw new AccountRefused("provider_linked", "Another account at this provider is linked already; unlink it first.");
        }
        identities.link({ provider, subject: who.subject, userId: linkUserId, email: who.email ?? "", now });
      }
      return users.byId(linkUserId)!;
    }
    if (known) {
      identities.touch(provider, who.subject, who.email ?? known.email, now);
      return users.byId(known.user_id)!;
    }
    if (!who.email) throw new AccountRefused("no_email", "The provider did not share an email address with Quire.");
    const existing = users.byEmail(who.email);
    if (existing) {
      if (!who.emailVerified) {
        throw new AccountRefused(
          "email_unverified",
          "An account with this email exists, but the provider has not verified the address. Sign in with your password or passkey and link the provider from your profile.",
        );
      }
      db.transaction(() => {
        identities.link({ provider, subject: who.subject, userId: existing.id, email: who.email!, now });
        db.query("UPDATE users SET email_verified = 1 WHERE id = ?").run(existing.id);
      })();
      return users.byId(existing.id)!;
    }
    if (!who.emailVerified) {
      throw new AccountRefused("email_unverified", "The provider has not verified your email address; verify it there, then sign in again.");
    }
    const invited = this.deps.invitations.hasPendingFor(who.email);
    if (this.deps.config.disableSignup && !invited) {
      throw new AccountRefused("signup_disabled", "Sign-up is disabled on this instance; ask an administrator for an invitation.");
    }
    let announce: (() => void) | null = null;
    const email = who.email;
    const user = await this.deps.auth.createAccount({
      name: (who.name || email.split("@")[0] || "New user").slice(0, 100),
      email,
      passwordHash: null,
      emailVerified: true,
      // As registration when anyone may sign up; as an accepted invitation in invite-only mode.
      starter: !this.deps.config.disableSignup,
      inside: (userId, at) => {
        identities.link({ provider, subject: who.subject, userId, email, now: at });
        if (invited) announce = this.deps.invitations.acceptPendingFor(userId, email, at);
      },
    });
    (announce as (() => void) | null)?.();
    return user;
  }
}
