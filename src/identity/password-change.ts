import type { Db } from "../db/database.ts";
import type { Users } from "./users.ts";
import type { Sessions } from "./sessions.ts";
import { checkPasswordRules, type PasswordHasher } from "./passwords.ts";
import { NotFoundError, ValidationError } from "../core/errors.ts";
import { parseInput } from "../core/validate.ts";
import { cancelPendingResets } from "./password-resets.ts";
import { changePasswordInput, type passwordChangedOutput } from "./schemas.ts";
import type { z } from "zod";


/**
 * A signed-in person changes their password by proving the current one. Like a reset, every
 * session of the account ends (a stolen session must not survive the change); the web app signs
 * in again with the new password, and every pending reset link is cancelled (one mailed before the
 * change must not set a password after it). A wrong current password is a 400 on `current_password`, not a
 * 401, so it never reads as an ended session.
 */
export class PasswordChange {
  constructor(private readonly deps: { db: Db; users: Users; sessions: Sessions; passwords: PasswordHasher }) {}

  async change(userId: string, body: unknown): Promise<z.infer<typeof passwordChangedOutput>> {
    const input = parseInput(changePasswordInput, body);
    const user = this.deps.users.byId(userId);
    if (!user) throw new NotFoundError("Account not found");
    const ok = user.password_hash !== null && (await this.deps.passwords.verify(user.password_hash, input.current_password));
    if (!ok) throw new ValidationError("current_password is not your current password", "current_password");
    const password = checkPasswordRules(input.new_password, "new_password");
    const hash = await this.deps.passwords.hash(password);
    const t = Date.now();
    const revoked = this.deps.db.transaction(() => {
      this.deps.users.setPassword(userId, hash, new Date(t).toISOString());
      cancelPendingResets(this.deps.db, userId, t);
      return this.deps.sessions.revokeAllOf(userId);
    })();
    return { revoked_sessions: revoked };
  }
}
