import type { Db } from "../db/database.ts";

export type CheckStatus = "ok" | "warning" | "error";
export interface Check {
  status: CheckStatus;
  message?: string;
  [extra: string]: unknown;
}

let gitPath: string | null | undefined;
/** The native git binary, looked up once (a missing one is a warning: local history uses isomorphic-git). */
export function gitBinary(): string | null {
  if (gitPath === undefined) gitPath = Bun.which("git");
  return gitPath;
}

/** Readiness: a usable database is required; git and the mail backlog only warn. */
export function readinessChecks(db: Db): { ready: boolean; checks: Record<string, Check> } {
  const checks: Record<string, Check> = {};
  try {
    db.query("SELECT 1").get();
    checks.database = { status: "ok" };
  } catch (error) {
    checks.database = { status: "error", message: "database is not usable" };
  }
  const git = gitBinary();
  checks.git = git ? { status: "ok" } : { status: "warning", message: "git binary not found; SSH remotes are unavailable" };
  try {
    const row = db
      .query<{ n: number; oldest: number | null }, []>(
        "SELECT COUNT(*) AS n, MIN(next_attempt_at) AS oldest FROM email_outbox WHERE status = 'pending'",
      )
      .get()!;
    const stale = row.oldest !== null && Date.now() - row.oldest > 3600_000;
    checks.email_outbox = stale
      ? { status: "warning", pending: row.n, message: "emails have been waiting for over an hour" }
      : { status: "ok", pending: row.n };
  } catch {
    checks.email_outbox = { status: "error", message: "outbox unreadable" };
  }
  return { ready: checks.database.status === "ok", checks };
}
