import type { Transporter } from "nodemailer";
import type { Db } from "../db/database.ts";
import type { SmtpConfig } from "../config.ts";
import type { Logger } from "../core/log.ts";
import { ulid } from "../core/ids.ts";
import { nowIso } from "../core/clock.ts";

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Delivery schedule; the defaults suit production, tests shorten them. */
export interface OutboxTiming {
  /** Attempts before a message is marked `failed` for good. */
  maxAttempts: number;
  /** How long the worker sleeps between looks for due mail. */
  pollMs: number;
  /** Wait before the next attempt after `attempts` failed ones. */
  backoffMs(attempts: number): number;
}

export const DEFAULT_OUTBOX_TIMING: OutboxTiming = {
  maxAttempts: 8,
  pollMs: 2_000,
  // 5 s, 10 s, 20 s, ... capped at 30 minutes.
  backoffMs: (attempts) => Math.min(5_000 * 2 ** (attempts - 1), 30 * 60_000),
};

/**
 * Durable outgoing mail. `enqueue` only inserts a row (safe inside the caller's transaction);
 * a worker sends due rows over SMTP after the commit, retrying with backoff. Without SMTP
 * configured nothing is queued and nothing is logged: callers check `enabled`.
 */
export class EmailOutbox {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** nodemailer is loaded on first send only: an instance without SMTP never pays its memory. */
  private transport: Promise<Transporter> | undefined;

  constructor(
    private readonly db: Db,
    private readonly smtp: SmtpConfig | undefined,
    private readonly log: Logger,
    private readonly timing: OutboxTiming = DEFAULT_OUTBOX_TIMING,
  ) {}

  private transporter(): Promise<Transporter> {
    const smtp = this.smtp!;
    this.transport ??= import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.pass ?? "" } } : {}),
      }),
    );
    return this.transport;
  }

  get enabled(): boolean {
    return this.smtp !== undefined;
  }

  /** Inserts the message; returns its id, or null when email is not configured. */
  enqueue(message: OutgoingEmail): string | null {
    if (!this.enabled) return null;
    const id = ulid();
    this.db
      .query(
        `INSERT INTO email_outbox (id, to_address, subject, text_body, html_body, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, message.to, message.subject, message.text, message.html ?? null, Date.now(), nowIso());
    return id;
  }

  /** Asks the worker to look for due mail now (after a commit that enqueued some). */
  kick(): void {
    if (!this.enabled || this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.drain(), 0);
  }

  /** Messages waiting to be sent (the `quire_email_outbox_pending` gauge). */
  pendingCount(): number {
    return this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM email_outbox WHERE status = 'pending'").get()?.n ?? 0;
  }

  start(): void {
    if (!this.enabled) return;
    this.stopped = false;
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    if (this.transport) (await this.transport).close();
  }

  /** Sends every due message once; reschedules itself while the worker runs. */
  drain(): Promise<void> {
    this.running ??= this.sendDue().finally(() => {
      this.running = undefined;
      if (!this.stopped) this.timer = setTimeout(() => void this.drain(), this.timing.pollMs);
    });
    return this.running;
  }

  private async sendDue(): Promise<void> {
    const due = this.db
      .query<
        { id: string; to_address: string; subject: string; text_body: string; html_body: string | null; attempts: number },
        [number]
      >(
        "SELECT id, to_address, subject, text_body, html_body, attempts FROM email_outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT 20",
      )
      .all(Date.now());
    for (const row of due) {
      if (this.stopped) return;
      try {
        await (await this.transporter()).sendMail({
          from: this.smtp!.from,
          to: row.to_address,
          subject: row.subject,
          text: row.text_body,
          ...(row.html_body ? { html: row.html_body } : {}),
        });
        this.db.query("UPDATE email_outbox SET status = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL WHERE id = ?").run(nowIso(), row.id);
      } catch (error) {
        const attempts = row.attempts + 1;
        const failed = attempts >= this.timing.maxAttempts;
        const delay = this.timing.backoffMs(attempts);
        this.db
          .query("UPDATE email_outbox SET attempts = ?, status = ?, next_attempt_at = ?, last_error = ? WHERE id = ?")
          .run(attempts, failed ? "failed" : "pending", Date.now() + delay, String((error as Error).message).slice(0, 500), row.id);
        this.log.warn("email delivery failed", { email_id: row.id, attempts, final: failed, error: (error as Error).message });
      }
    }
  }
}
