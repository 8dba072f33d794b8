import { nowIso } from "../core/clock.ts";
import type { Actor } from "../content/committed-write.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { PullPlan } from "./pull.ts";
import type { SyncDeps } from "./sync-context.ts";

/** Why a sync round ran (the activity entry of a pull records it). */
export type TriggerReason = "manual" | "webhook" | "poll" | "push-rejected" | "start";

const GIT_ACTOR: Actor = { id: null, name: "git sync" };

/**
 * Events and the activity entry for a pull: one bulk-sync when several pages changed. A deleted
 * path whose page id reappears at an added path is told as a move. `publishPages` is false when
 * the reconciler announced the pages itself, so each change is told once. Returns the
 * counts the sync result reports.
 */
export function reportPull(
  deps: Pick<SyncDeps, "bus" | "ledger" | "db" | "log">,
  ws: WorkspaceRow,
  plan: PullPlan,
  remoteOid: string,
  reason: TriggerReason,
  publishPages: boolean,
): { added: number; updated: number; deleted: number } {
  const { bus, ledger, db } = deps;
  const counts = { added: 0, updated: 0, deleted: 0 };
  const pages = plan.applied.filter((c) => c.path.endsWith(".md"));
  const events: Array<{ type: "page-created" | "page-updated" | "page-deleted" | "page-moved"; fields: Record<string, unknown> }> = [];
  // A deleted path whose page id reappears at an added path is a move: the id is kept.
  const added = pages.filter((c) => c.kind === "added");
  const movedFrom = new Map<string, string>();
  for (const d of pages.filter((c) => c.kind === "deleted" && c.previousId)) {
    const target = added.find((a) => ledger.records.live(ws.id, a.path)?.id === d.previousId);
    if (target) movedFrom.set(target.path, d.path);
  }
  const movedAway = new Set(movedFrom.values());
  for (const c of pages) {
    if (movedAway.has(c.path)) continue;
    const from = movedFrom.get(c.path);
    if (from) {
      counts.updated++;
      events.push({ type: "page-moved", fields: { old_path: from, new_path: c.path } });
    } else {
      counts[c.kind]++;
      events.push({ type: c.kind === "added" ? "page-created" : c.kind === "deleted" ? "page-deleted" : "page-updated", fields: { path: c.path } });
    }
  }
  for (const conflict of plan.conflicts) {
    deps.log.warn("git sync conflict: the local version is kept until it is resolved", { workspace_id: ws.id, path: conflict.path, page_id: conflict.page_id });
    bus.publish({ type: "conflict-detected", workspace_id: ws.id, payload: { workspace_id: ws.id, path: conflict.path } });
  }
  if (publishPages && events.length > 1) {
    const paths = [...new Set(pages.map((c) => c.path))];
    bus.publish({ type: "bulk-sync", workspace_id: ws.id, payload: { workspace_id: ws.id, changed_count: paths.length, paths } });
  } else if (publishPages && events.length === 1) {
    const e = events[0]!;
    bus.publish({ type: e.type, workspace_id: ws.id, payload: { workspace_id: ws.id, ...e.fields, actor: GIT_ACTOR } });
  }
  if (events.length > 0 || plan.conflicts.length > 0 || plan.merged.length > 0) {
    db.transaction(() => {
      ledger.activity.record({
        workspaceId: ws.id,
        action: "sync_completed",
        actorId: null,
        actorName: GIT_ACTOR.name,
        details: { ...counts, conflicts: plan.conflicts.length, merged: plan.merged, remote_commit: remoteOid, reason },
        now: nowIso(),
      });
    })();
  }
  return counts;
}
