import type { z } from "zod";
import type { userOutput } from "./schemas.ts";
import type { Db } from "../db/database.ts";

export interface UserRow {
  id: string;
  name: string;
  email: string;
  email_normalized: string;
  email_verified: number;
  password_hash: string | null;
  failed_logins: number;
  locked_until: number | null;
  is_platform_owner: number;
  created_at: string;
  updated_at: string;
}

/** The account as answered, without any secret: the documented output schema's type. */
export type UserJson = z.infer<typeof userOutput>;

export const normalizeEmail = (email: string): string => email.trim().normalize("NFC").toLowerCase();

/** True when an insert lost a race for an address: the unique index on normalized emails decided. */
export const isDuplicateEmailError = (error: unknown): boolean =>
  String(error).includes("UNIQUE constraint failed: users.email_normalized");

export function toUserJson(row: UserRow): UserJson {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    email_verified: row.email_verified === 1,
    has_password: row.password_hash !== null,
    created_at: row.created_at,
  };
}

export class Users {
  constructor(private readonly db: Db) {}

  byId(id: string): UserRow | null {
    return this.db.query<UserRow, [string]>("SELECT * FROM users WHERE id = ?").get(id);
  }

  byEmail(email: string): UserRow | null {
    return this.db
      .query<UserRow, [string]>("SELECT * FROM users WHERE email_normalized = ?")
      .get(normalizeEmail(email));
  }

  insert(row: { id: string; name: string; email: string; passwordHash: string | null; now: string }): void {
    this.db
      .query(
        `INSERT INTO users (id, name, email, email_normalized, password_hash, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.id, row.name, row.email, normalizeEmail(row.email), row.passwordHash, row.now, row.now);
  }

  setPassword(id: string, passwordHash: string, now: string): void {
    this.db
      .query("UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL, updated_at = ? WHERE id = ?")
      .run(passwordHash, now, id);
  }

  recordFailedLogin(id: string, threshold: number, lockMs: number, nowMs: number): void {
    // One statement, so concurrent failures cannot lose a count.
    this.db
      .query(
        `UPDATE users SET
           failed_logins = failed_logins + 1,
           locked_until = CASE WHEN failed_logins + 1 >= ? THEN ? ELSE locked_until END
         WHERE id = ?`,
      )
      .run(threshold, nowMs + lockMs, id);
  }

  /** After a lock expires the counter starts again from zero. */
  clearExpiredLock(id: string, nowMs: number): void {
    this.db
      .query("UPDATE users SET failed_logins = 0, locked_until = NULL WHERE id = ? AND locked_until IS NOT NULL AND locked_until <= ?")
      .run(id, nowMs);
  }

  resetFailedLogins(id: string): void {
    this.db.query("UPDATE users SET failed_logins = 0, locked_until = NULL WHERE id = ?").run(id);
  }
}
