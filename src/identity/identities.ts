import type { Db } from "../db/database.ts";

interface IdentityRow {
  provider: string;
  subject: string;
  user_id: string;
  email: string;
  created_at: string;
  last_used_at: string | null;
}

/** External identities linked to accounts: (provider, subject) → user. */
export class Identities {
  constructor(private readonly db: Db) {}

  find(provider: string, subject: string): IdentityRow | null {
    return this.db.query<IdentityRow, [string, string]>("SELECT * FROM user_identities WHERE provider = ? AND subject = ?").get(provider, subject);
  }

  ofUser(userId: string): IdentityRow[] {
    return this.db.query<IdentityRow, [string]>("SELECT * FROM user_identities WHERE user_id = ? ORDER BY provider").all(userId);
  }

  /** Call inside a transaction when it goes with other writes. */
  link(row: { provider: string; subject: string; userId: string; email: string; now: string }): void {
    this.db
      .query("INSERT INTO user_identities (provider, subject, user_id, email, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(row.provider, row.subject, row.userId, row.email, row.now, row.now);
  }

  touch(provider: string, subject: string, email: string, now: string): void {
    this.db.query("UPDATE user_identities SET last_used_at = ?, email = ? WHERE provider = ? AND subject = ?").run(now, email, provider, subject);
  }

  unlink(userId: string, provider: string): number {
    return this.db.query("DELETE FROM user_identities WHERE user_id = ? AND provider = ?").run(userId, provider).changes;
  }
}
