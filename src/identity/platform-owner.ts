/**
 * Platform owners: the people who run the instance (metrics, and later other instance-wide
 * views). A user is one when their row carries `is_platform_owner`; while no row does (nothing
 * sets the flag yet), the instance's first registered user is — the same person who owns the
 * default organization (docs/decisions/default-organization.md, docs/decisions/metrics.md).
 */
import type { Db } from "../db/database.ts";

export function isPlatformOwner(db: Db, userId: string): boolean {
  const flagged = db.query<{ id: string }, []>("SELECT id FROM users WHERE is_platform_owner = 1 LIMIT 1").get();
  if (flagged) {
    return db.query<{ n: number }, [string]>("SELECT is_platform_owner AS n FROM users WHERE id = ?").get(userId)?.n === 1;
  }
  const first = db.query<{ id: string }, []>("SELECT id FROM users ORDER BY created_at, id LIMIT 1").get();
  return first?.id === userId;
}
