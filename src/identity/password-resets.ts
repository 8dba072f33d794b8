import { escapeHtml } from "../core/escape.ts";
import type { Db } from "../db/database.ts";
import { ValidationError } from "../core/errors.ts";
import { sha256Hex } from "../core/crypto.ts";
import { randomToken } from "../core/ids.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import { checkPasswordRules, type PasswordHasher } from "./passwords.ts";
import { forgotPasswordInput, resetPasswordInput } from "./schemas.ts";
import type { Users, UserRow } from "./users.ts";
import type { Sessions } from "./sessions.ts";
import type { OutgoingEmail } from "../mail/email-outbox.ts";

/** A reset token is good for one hour and one use. */
export const RESET_TTL_MS = 3600 * 1000;
/**
 * At most this many unused, unexpired tokens per account: forgot-password is limited per IP, and
 * this stops one address being flooded with mail from many addresses.
 */
const MAX_LIVE_TOKENS = 5;

/** What the reset flow needs of the email outbox (the CLI passes none: it prints the link). */
interface ResetMailer {
  readonly enabled: boolean;
  enqueue(message: OutgoingEmail): string | null;
  kick(): void;
}

interface IssuedReset {
  userId: string;
  token: string;
  url: string;
  expiresAt: string;
}

/**
 * Password reset: random tokens stored only as SHA-256, single use, valid one hour. Using one sets
 * the new password, clears any lockout and revokes every session of the account.
 */
export class PasswordResets {
  constructor(
    private readonly deps: {
      db: Db;
      users: Users;
      sessions: Sessions;
      passwords: PasswordHasher;
      mailer?: ResetMailer;
      baseUrl: string;
    },
  ) {}

  /**
   * forgot-password: when the account exists and email is configured, a link is queued in the
   * same transaction as the token. The caller learns nothing either way, so it cannot probe
   * which addresses have accounts; without email nothing is sent and nothing is logged.
   */
  requestByEmail(body: unknown): void {
    const input = parseInput(forgotPasswordInput, body);
    const mailer = this.deps.mailer;
    if (!mailer?.enabled) return;
    const user = this.deps.users.byEmail(input.email);
    if (!user) return;
    const t = nowMs();
    const queued = this.deps.db.transaction(() => {
      if (this.liveTokenCount(user.id, t) >= MAX_LIVE_TOKENS) return false;
      const issued = this.insertToken(user, this.deps.baseUrl, t);
      mailer.enqueue(resetEmail(user, issued));
      return true;
    })();
    if (queued) mailer.kick();
  }

  /** Creates a token for the account with this email (the reset-password command); null when there is none. */
  issueForEmail(email: string, baseUrl: string = this.deps.baseUrl): IssuedReset | null {
    const user = this.deps.users.byEmail(email);
    if (!user) return null;
    return this.deps.db.transaction(() => this.insertToken(user, baseUrl, nowMs()))();
  }

  /**
   * reset-password: a bad, used or expired token is a VALIDATION_ERROR on `token` (the same one
   * for each, so a guesser learns nothing). The token is consumed in the same transaction that
   * changes the password, so two concurrent uses cannot both succeed.
   */
  async reset(body: unknown): Promise<{ userId: string; revokedSessions: number }> {
    const input = parseInput(resetPasswordInput, body);
    const password = checkPasswordRules(input.new_password, "new_password");
    const hash = sha256Hex(input.token);
    const row = this.liveToken(hash, nowMs());
    if (!row) throw invalidToken();
    // Hashing is slow and async, so it runs before the transaction; the transaction re-checks the token.
    const passwordHash = await this.deps.passwords.hash(password);
    const t = nowMs();
    return this.deps.db.transaction(() => {
      const used = this.deps.db
        .query("UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?")
        .run(t, hash, t).changes;
      if (used !== 1) throw invalidToken();
      // Any other link sent to the account dies with this one: the password it was meant to replace is gone.
      cancelPendingResets(this.deps.db, row.user_id, t);
      this.deps.users.setPassword(row.user_id, passwordHash, isoFromMs(t));
      const revokedSessions = this.deps.sessions.revokeAllOf(row.user_id);
      return { userId: row.user_id, revokedSessions };
    })();
  }

  private insertToken(user: UserRow, baseUrl: string, t: number): IssuedReset {
    const token = randomToken(32);
    const expiresAt = t + RESET_TTL_MS;
    this.deps.db
      .query("INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)")
      .run(sha256Hex(token), user.id, t, expiresAt);
    const url = `${baseUrl.replace(/\/+$/, "")}/reset-password?token=${encodeURIComponent(token)}`;
    return { userId: user.id, token, url, expiresAt: isoFromMs(expiresAt) };
  }

  private liveToken(hash: string, t: number): { user_id: string } | null {
    return this.deps.db
      .query<{ user_id: string }, [string, number]>(
        "SELECT user_id FROM password_resets WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
      )
      .get(hash, t);
  }

  private liveTokenCount(userId: string, t: number): number {
    return this.deps.db
      .query<{ n: number }, [string, number]>(
        "SELECT COUNT(*) AS n FROM password_resets WHERE user_id = ? AND used_at IS NULL AND expires_at > ?",
      )
      .get(userId, t)!.n;
  }
}

/**
 * Marks every unused reset link of the account as used. Called wherever the password changes (a
 * reset, a change while signed in): a link mailed for the old password must not outlive it.
 * Runs inside the caller's transaction.
 */
export function cancelPendingResets(db: Db, userId: string, t: number): number {
  return db.query("UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL").run(t, userId).changes;
}

function invalidToken(): ValidationError {
  return new ValidationError("The reset link is invalid, already used or expired; ask for a new one", "token");
}

function resetEmail(user: UserRow, issued: IssuedReset): OutgoingEmail {
  const text = [
    `Hello ${user.name},`,
    "",
    "Someone (hopefully you) asked to reset the password of your Quire account.",
    "Open this link within one hour to choose a new password:",
    "",
    issued.url,
    "",
    "The link works once. If you did not ask for this, ignore this email: your password stays as it is.",
  ].join("\n");
  const html =
    `<p>Hello ${escapeHtml(user.name)},</p>` +
    `<p>Someone (hopefully you) asked to reset the password of your Quire account. ` +
    `Open this link within one hour to choose a new password:</p>` +
    `<p><a href="${escapeHtml(issued.url)}">Reset your password</a></p>` +
    `<p>The link works once. If you did not ask for this, ignore this email: your password stays as it is.</p>`;
  return { to: user.email, subject: "Reset your Quire password", text, html };
}

