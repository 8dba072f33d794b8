/**
 * analytics.db: page views of published sites and search queries, in their own SQLite file (WAL)
 * with their own migrations, kept apart from quire.db so a flood of visits never competes with
 * page saves for the writer lock, and so the file can be deleted without touching anything else.
 *
 * Everything is stored as daily aggregates (one row per workspace, day and path or query), never
 * one row per event, and no IP address, user agent or cookie value is stored; see
 * docs/decisions/analytics.md for the privacy rules and the storage caps.
 */
import { openDatabase, migrate, type Db } from "../db/database.ts";
import type { Migration } from "../db/migrations/index.ts";

const schema = /* sql */ `
CREATE TABLE page_views (
  workspace_id TEXT NOT NULL,
  day TEXT NOT NULL,            -- YYYY-MM-DD (UTC)
  path TEXT NOT NULL,           -- the page path inside the site; '(other)' collects views past the cap
  views INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, day, path)
) WITHOUT ROWID;

CREATE TABLE referrers (
  workspace_id TEXT NOT NULL,
  day TEXT NOT NULL,
  host TEXT NOT NULL,           -- the referring site's host name only, never its URL
  views INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, day, host)
) WITHOUT ROWID;

CREATE TABLE searches (
  workspace_id TEXT NOT NULL,
  day TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('app', 'site')),
  query TEXT NOT NULL,          -- normalised (trimmed, lower case, spaces collapsed); '(other)' past the cap
  searches INTEGER NOT NULL,
  no_results INTEGER NOT NULL,  -- how many of them found nothing
  PRIMARY KEY (workspace_id, day, source, query)
) WITHOUT ROWID;

-- Visitors who consented, as salted hashes whose salt changes every day and is never stored:
-- a hash cannot be traced back to an address, nor linked to the same visitor on another day.
-- Hashes of past days are folded into visitor_days and deleted.
CREATE TABLE visitors (
  workspace_id TEXT NOT NULL,
  day TEXT NOT NULL,
  visitor TEXT NOT NULL,
  PRIMARY KEY (workspace_id, day, visitor)
) WITHOUT ROWID;

CREATE TABLE visitor_days (
  workspace_id TEXT NOT NULL,
  day TEXT NOT NULL,
  visitors INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, day)
) WITHOUT ROWID;

CREATE TABLE consents (
  workspace_id TEXT NOT NULL,
  day TEXT NOT NULL,
  granted INTEGER NOT NULL,
  denied INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, day)
) WITHOUT ROWID;
`;

/** analytics.db's own ordered migrations (its schema_migrations table is its own). */
const ANALYTICS_MIGRATIONS: Migration[] = [{ version: 1, name: "analytics-daily-aggregates", sql: schema }];

export function openAnalyticsDb(path: string): Db {
  const db = openDatabase(path);
  migrate(db, ANALYTICS_MIGRATIONS);
  return db;
}
