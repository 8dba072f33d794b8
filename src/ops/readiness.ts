import type { Db } from "../db/database.ts";
import type { StorageHealth } from "../core/storage-errors.ts";
import { WorkspaceProblems } from "../workspaces/workspace-problems.ts";
import type { ReadinessChecksOutput } from "./schemas.ts";

/** An outbox message older than this means mail is not going out. */
const OUTBOX_STALE_MS = 3600_000;

const gitPaths = new Map<string, string | null>();
/**
 * The native git binary on `searchPath` (default: this process's PATH), looked up once per
 * search path. A missing one is a warning, not a failure: local history uses isomorphic-git and
 * only SSH remotes need the binary.
 */
export function gitBinary(searchPath: string = process.env.PATH ?? ""): string | null {
  let found = gitPaths.get(searchPath);
  if (found === undefined) {
    found = searchPath === "" ? null : Bun.which("git", { PATH: searchPath });
    gitPaths.set(searchPath, found);
  }
  return found;
}

interface Readiness {
  ready: boolean;
  /** The documented answer's checks (readinessOutput), so the two cannot differ. */
  checks: ReadinessChecksOutput;
}

/**
 * Readiness: a usable database is required; git and the mail backlog only warn. `findGit` is a
 * parameter so the missing-binary case can be checked without changing the machine.
 */
export function readinessChecks(db: Db, opts: { findGit?: () => string | null; nowMs?: number; storage?: StorageHealth } = {}): Readiness {
  const now = opts.nowMs ?? Date.now();
  let database: ReadinessChecksOutput["database"];
  try {
    db.query("SELECT 1").get();
    database = { status: "ok" };
  } catch {
    // The reason stays in the server log's hands; a public endpoint names nothing internal.
    database = { status: "error", message: "database is not usable" };
  }
  const git = (opts.findGit ?? gitBinary)()
    ? { status: "ok" as const }
    : { status: "warning" as const, message: "git binary not found; SSH remotes are unavailable" };
  let email_outbox: ReadinessChecksOutput["email_outbox"];
  try {
    const row = db
      .query<{ n: number; oldest: number | null }, []>(
        "SELECT COUNT(*) AS n, MIN(next_attempt_at) AS oldest FROM email_outbox WHERE status = 'pending'",
      )
      .get()!;
    email_outbox =
      row.oldest !== null && now - row.oldest > OUTBOX_STALE_MS
        ? { status: "warning", pending: row.n, message: "emails have been waiting for over an hour" }
        : { status: "ok", pending: row.n };
  } catch {
    email_outbox = { status: "error", message: "outbox unreadable" };
  }
  // A workspace whose reconciliation stopped (folder missing or emptied) still serves its pages:
  // a warning for the operator, not a reason to take the instance out of rotation. Only a count:
  // the endpoint is public and names no workspace (each workspace's JSON says which, to its members).
  let workspaces: ReadinessChecksOutput["workspaces"];
  try {
    const stopped = new WorkspaceProblems(db).liveCount();
    workspaces =
      stopped > 0
        ? { status: "warning", stopped, message: `${stopped} workspace(s) stopped reconciling: folder missing or without Markdown while pages exist` }
        : { status: "ok", stopped: 0 };
  } catch {
    workspaces = { status: "error", message: "workspaces unreadable" };
  }
  // A full or read-only disk stops writes, not reads: the instance stays in rotation (readers are
  // served) and the check says why saves fail, or that they soon will.
  const storage = opts.storage?.check();
  return { ready: database.status === "ok", checks: { database, git, email_outbox, workspaces, ...(storage ? { storage } : {}) } };
}
