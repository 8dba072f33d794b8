import { UnauthorizedError } from "../core/errors.ts";
import { nowMs } from "../core/clock.ts";
import type { PasswordHasher } from "./passwords.ts";
import type { UserRow, Users } from "./users.ts";

/** The one answer to every failed password check: it never tells which part was wrong. */
export const INVALID_CREDENTIALS = "Invalid email or password";

/**
 * Proves that `password` is the account's, counting failures toward the login lockout. Login and
 * accepting an invitation as an existing account both go through here, so a guess costs the same
 * wherever it is made. Returns the account as it is after the check; any failure is a 401
 * INVALID_CREDENTIALS.
 *
 * The password is verified first (always, so a missing or locked account answers in the same
 * time), and the lock is decided on the account as it is *after* the slow verification: a burst of
 * concurrent guesses must not each find the account still unlocked as it was when they arrived.
 */
export async function checkPasswordWithLockout(
  deps: { users: Users; passwords: PasswordHasher; lock: { threshold: number; durationSec: number } },
  user: UserRow | null,
  password: string,
): Promise<UserRow> {
  const { users, passwords, lock } = deps;
  if (!user || user.password_hash === null) {
    await passwords.verifyDummy(password);
    throw new UnauthorizedError(INVALID_CREDENTIALS);
  }
  const ok = await passwords.verify(user.password_hash, password);
  const t = nowMs();
  users.clearExpiredLock(user.id, t);
  const current = users.byId(user.id);
  if (!current || (current.locked_until !== null && current.locked_until > t)) throw new UnauthorizedError(INVALID_CREDENTIALS);
  if (!ok) {
    users.recordFailedLogin(user.id, lock.threshold, lock.durationSec * 1000, t);
    throw new UnauthorizedError(INVALID_CREDENTIALS);
  }
  // A reset that landed during the verification makes the verified password an old one.
  if (current.password_hash !== user.password_hash) throw new UnauthorizedError(INVALID_CREDENTIALS);
  users.resetFailedLogins(user.id);
  return current;
}
