import { nowIso } from "../core/clock.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { Logger } from "../core/log.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { ConflictStore } from "./conflict-store.ts";
import { scrub, type RemoteSpec } from "./remote-url.ts";

export type SyncStatus = "disabled" | "synced" | "syncing" | "ahead" | "behind" | "conflict" | "error";

/**
 * A workspace's sync status and its last sync error. The status lives on the workspace row (so
 * it survives a restart and lists show it) and every change is announced on the bus; the error
 * text lives here only, for the settings screen, and is scrubbed of the remote's credentials.
 */
export class SyncStatusBoard {
  private readonly lastErrors = new Map<string, string>();

  constructor(private readonly deps: { workspaces: WorkspaceRecords; bus: EventBus; log: Logger; conflicts: ConflictStore }) {}

  lastError(workspaceId: string): string | null {
    return this.lastErrors.get(workspaceId) ?? null;
  }

  clearError(workspaceId: string): void {
    this.lastErrors.delete(workspaceId);
  }

  /** What a workspace is once nothing is in flight: in conflict while any conflict is open. */
  settled(workspaceId: string): SyncStatus {
    return this.deps.conflicts.list(workspaceId).length > 0 ? "conflict" : "synced";
  }

  /** Re-evaluates the status after conflicts were resolved. */
  refresh(workspaceId: string): void {
    const ws = this.deps.workspaces.byId(workspaceId);
    if (!ws?.git_remote) return;
    if (ws.sync_status === "conflict" || ws.sync_status === "synced") this.set(ws, this.settled(ws.id));
  }

  /** A commit was made: a workspace at rest is now ahead (a sync or error in flight keeps its status). */
  markAhead(workspaceId: string): void {
    const ws = this.deps.workspaces.byId(workspaceId);
    if (ws && (ws.sync_status === "synced" || ws.sync_status === "disabled")) this.set(ws, "ahead");
  }

  set(ws: WorkspaceRow, status: SyncStatus): void {
    const current = this.deps.workspaces.byId(ws.id);
    if (!current || current.sync_status === status) return;
    this.deps.workspaces.update(ws.id, { sync_status: status }, nowIso());
    this.deps.bus.publish({ type: "sync-status", workspace_id: ws.id, payload: { workspace_id: ws.id, status } });
  }

  /** A pull brought something refused (an invalid `.quire/access.yaml`): the status says why until a sync without it. */
  refuse(ws: WorkspaceRow, message: string): void {
    this.lastErrors.set(ws.id, message);
    this.deps.log.warn("git sync refused a file", { workspace_id: ws.id, error: message });
    this.set(ws, "error");
  }

  fail(ws: WorkspaceRow, spec: RemoteSpec, error: unknown, what: string): void {
    const message = scrub(error instanceof Error ? error.message : String(error), spec);
    this.lastErrors.set(ws.id, message);
    this.deps.log.warn(`git ${what} failed`, { workspace_id: ws.id, error: message });
    this.set(ws, "error");
  }
}
