import type { Db } from "../db/database.ts";
import { ConflictError, NotFoundError } from "../core/errors.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import { checkPasswordRules, type PasswordHasher } from "./passwords.ts";
import type { Identities } from "./identities.ts";
import type { Users } from "./users.ts";
import type { z } from "zod";
import { setPasswordInput, type signInMethodsOutput } from "./schemas.ts";

/** The sign-in methods as answered: the documented output schema's type. */
type SignInMethodsJson = z.infer<typeof signInMethodsOutput>;

/**
 * The ways an account can sign in — a password, each linked provider, each passkey — and the
 * rule that the last one cannot be removed (the person would be locked out for good).
 */
export class SignInMethods {
  constructor(
    private readonly deps: {
      db: Db;
      users: Users;
      identities: Identities;
      passwords: PasswordHasher;
      providers: () => Array<{ id: string; name: string }>;
    },
  ) {}

  count(userId: string): number {
    const user = this.deps.users.byId(userId);
    if (!user) return 0;
    const passkeys = this.deps.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM webauthn_credentials WHERE user_id = ?").get(userId)!.n;
    return (user.password_hash !== null ? 1 : 0) + this.deps.identities.ofUser(userId).length + passkeys;
  }

  /** Throws CONFLICT when removing one method would leave none. Call inside the removing transaction. */
  assertNotLast(userId: string): void {
    if (this.count(userId) <= 1) {
      throw new ConflictError("This is your last way to sign in; add a password, a passkey or a provider before removing it", undefined, {
        reason: "last_method",
      });
    }
  }

  list(userId: string): SignInMethodsJson {
    const user = this.deps.users.byId(userId);
    if (!user) throw new NotFoundError("Account not found");
    const linked = new Map(this.deps.identities.ofUser(userId).map((i) => [i.provider, i]));
    const passkeys = this.deps.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM webauthn_credentials WHERE user_id = ?").get(userId)!.n;
    return {
      password: user.password_hash !== null,
      providers: this.deps.providers().map((p) => {
        const i = linked.get(p.id);
        return { id: p.id, name: p.name, linked: !!i, email: i?.email || null, linked_at: i?.created_at ?? null, last_used_at: i?.last_used_at ?? null };
      }),
      passkeys,
    };
  }

  unlink(userId: string, provider: string): void {
    this.deps.db.transaction(() => {
      if (!this.deps.identities.ofUser(userId).some((i) => i.provider === provider)) throw new NotFoundError("This provider is not linked to your account");
      this.assertNotLast(userId);
      this.deps.identities.unlink(userId, provider);
    })();
  }

  /** Removes the password (a passkey-only or provider-only account), never the last method. */
  removePassword(userId: string): void {
    this.deps.db.transaction(() => {
      const user = this.deps.users.byId(userId);
      if (!user || user.password_hash === null) throw new NotFoundError("This account has no password");
      this.assertNotLast(userId);
      this.deps.db.query("UPDATE users SET password_hash = NULL, failed_logins = 0, locked_until = NULL, updated_at = ? WHERE id = ?").run(isoFromMs(nowMs()), userId);
    })();
  }

  /** An account made by an external sign-in or with passkeys adds a password later (a change of password goes through change-password). */
  async addPassword(userId: string, body: unknown): Promise<void> {
    const input = parseInput(setPasswordInput, body);
    const user = this.deps.users.byId(userId);
    if (!user) throw new NotFoundError("Account not found");
    if (user.password_hash !== null) throw new ConflictError("This account has a password already; change it with your current password", undefined, { field: "new_password" });
    const hash = await this.deps.passwords.hash(checkPasswordRules(input.new_password, "new_password"));
    this.deps.db.transaction(() => {
      // Re-checked inside the write: two tabs adding a password at once set exactly one.
      const changed = this.deps.db
        .query("UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL, updated_at = ? WHERE id = ? AND password_hash IS NULL")
        .run(hash, isoFromMs(nowMs()), userId).changes;
      if (changed !== 1) throw new ConflictError("This account has a password already", undefined, { field: "new_password" });
    })();
  }
}
