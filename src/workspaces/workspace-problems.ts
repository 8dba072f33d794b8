import type { Db } from "../db/database.ts";

/**
 * Problems a workspace reports while they hold (docs/architecture.md §5: after a reconcile safety stop "the
 * workspace reports the error"). Kept in the database, not in the reconciler's memory, so the
 * workspace JSON and /api/ready show them wherever they are read, after a restart too, and a stop
 * met by `quire rebuild` is seen by the next server. Rows live in the `instance` key/value table
 * under one key per workspace, so no schema change is needed.
 */
export interface WorkspaceProblem {
  /** `safety_stop`: reconciliation refused to run (folder missing, or no Markdown while pages exist). */
  kind: "safety_stop";
  message: string;
  /** When the problem was first seen (ISO 8601); it holds until a reconcile pass completes. */
  since: string;
}

const PREFIX = "workspace_problem:";

export class WorkspaceProblems {
  constructor(private readonly db: Db) {}

  of(workspaceId: string): WorkspaceProblem[] {
    const row = this.db.query<{ value: string }, [string]>("SELECT value FROM instance WHERE key = ?").get(PREFIX + workspaceId);
    if (!row) return [];
    try {
      return [JSON.parse(row.value) as WorkspaceProblem];
    } catch {
      return [];
    }
  }

  /** Records the problem; a stop that keeps holding keeps its first `since`. */
  report(workspaceId: string, problem: Omit<WorkspaceProblem, "since">, now: string): void {
    const since = this.of(workspaceId)[0]?.since ?? now;
    this.db
      .query("INSERT INTO instance (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
      .run(PREFIX + workspaceId, JSON.stringify({ ...problem, since }));
  }

  /** Clears the workspace's problem; reads first so the usual pass (nothing to clear) writes nothing. */
  clear(workspaceId: string): void {
    if (this.of(workspaceId).length === 0) return;
    this.db.query("DELETE FROM instance WHERE key = ?").run(PREFIX + workspaceId);
  }

  /** How many live workspaces report a problem (for /api/ready, which names no workspace). */
  liveCount(): number {
    return (
      this.db
        .query<{ n: number }, [string]>(
          "SELECT COUNT(*) AS n FROM workspaces w JOIN instance i ON i.key = ? || w.id WHERE w.deleted_at IS NULL",
        )
        .get(PREFIX)?.n ?? 0
    );
  }
}
