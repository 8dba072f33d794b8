/**
 * Periodic clean-up of rows that can never be used again, so the database does not grow with
 * every login and every mail forever. Runs once at start and then every hour; each run is one
 * short transaction of indexed or small-table deletes.
 */
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Sessions } from "../identity/sessions.ts";
import { isoFromMs } from "../core/clock.ts";

export const MAINTENANCE_INTERVAL_MS = 3600_000;
const DAY_MS = 24 * 3600_000;
/** A pending invitation past its expiry still reads as "expired" to admins and invitees this long. */
const EXPIRED_INVITATION_KEEP_MS = 30 * DAY_MS;
/** Sent mail is kept for looking into delivery questions, failed mail longer (it needs a person). */
const SENT_EMAIL_KEEP_MS = 30 * DAY_MS;
const FAILED_EMAIL_KEEP_MS = 90 * DAY_MS;

interface PurgeCounts {
  sessions: number;
  refresh_tokens: number;
  password_resets: number;
  invitations: number;
  emails: number;
  /** External sign-in flows and claim codes, passkey challenges: minutes-long, single use. */
  sign_in_challenges: number;
}

export class Maintenance {
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly intervalMs: number;

  constructor(
    private readonly deps: { db: Db; sessions: Sessions; log: Logger; intervalMs?: number },
  ) {
    this.intervalMs = deps.intervalMs ?? MAINTENANCE_INTERVAL_MS;
  }

  /** Runs once now, then every interval. The timer never keeps a process alive on its own. */
  start(): void {
    if (this.timer) return;
    this.runSafely();
    this.timer = setInterval(() => this.runSafely(), this.intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Deletes what is dead at `nowMs`: expired sessions and refresh tokens, used or expired reset
   * links, pending invitations expired for over 30 days, sent mail older than 30 days and failed
   * mail older than 90. Accepted and revoked invitations are the admin's history and stay.
   */
  run(nowMs: number = Date.now()): PurgeCounts {
    const { db } = this.deps;
    const { sessions, refreshTokens } = this.deps.sessions.purgeExpired(nowMs);
    const rest = db.transaction(() => ({
      password_resets: db
        .query("DELETE FROM password_resets WHERE used_at IS NOT NULL OR expires_at <= ?")
        .run(nowMs).changes,
      // Both sides are toISOString() text, which orders like the instants it names.
      invitations: db
        .query("DELETE FROM invitations WHERE status = 'pending' AND expires_at <= ?")
        .run(isoFromMs(nowMs - EXPIRED_INVITATION_KEEP_MS)).changes,
      emails:
        db.query("DELETE FROM email_outbox WHERE status = 'sent' AND sent_at <= ?").run(isoFromMs(nowMs - SENT_EMAIL_KEEP_MS))
          .changes +
        // A failed row has no failure time; its attempts end within the hour of its creation.
        db.query("DELETE FROM email_outbox WHERE status = 'failed' AND created_at <= ?").run(isoFromMs(nowMs - FAILED_EMAIL_KEEP_MS))
          .changes,
      sign_in_challenges:
        db.query("DELETE FROM oidc_flows WHERE expires_at <= ?").run(nowMs).changes +
        db.query("DELETE FROM oidc_claims WHERE expires_at <= ?").run(nowMs).changes +
        db.query("DELETE FROM webauthn_challenges WHERE expires_at <= ?").run(nowMs).changes,
    }))();
    return { sessions, refresh_tokens: refreshTokens, ...rest };
  }

  private runSafely(): void {
    try {
      const counts = this.run();
      if (Object.values(counts).some((n) => n > 0)) this.deps.log.info("maintenance purged expired rows", { ...counts });
    } catch (error) {
      // A busy or closing database must not crash the server; the next run tries again.
      this.deps.log.warn("maintenance run failed", { error: String(error) });
    }
  }
}
