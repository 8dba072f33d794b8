/**
 * In-process publish/subscribe between domains, so the ledger never imports the WebSocket hub or
 * the search index. Two channels:
 * - `events`: the events of docs/interfaces.md §6 (page-created, ..., bulk-sync), fanned out to
 *   WebSocket clients of the workspace;
 * - `changes`: what the ledger committed, with the page's text, for the search index.
 * Listeners run after the database commit; a failing listener is logged, never breaks the write.
 */
type EventType =
  | "page-created"
  | "page-updated"
  | "page-deleted"
  | "page-moved"
  | "presence-join"
  | "presence-leave"
  | "sync-status"
  | "conflict-detected"
  | "bulk-sync"
  // Comments (payload {workspace_id, comment_id, parent_id, page_path, resolved, actor})
  | "comment-added"
  | "comment-updated"
  | "comment-deleted"
  // The page a person has open (payload {workspace_id, user_id, path|null})
  | "page-viewing";

export interface WorkspaceEvent {
  type: EventType;
  workspace_id: string;
  /** The payload fields of the events table of docs/interfaces.md §6 (workspace_id included). */
  payload: Record<string, unknown>;
}

export interface PageSnapshot {
  page_id: string;
  path: string;
  title: string;
  description: string;
  tags: string[];
  body: string;
}

export type LedgerChange =
  | { kind: "upsert"; workspace_id: string; page: PageSnapshot }
  | { kind: "remove"; workspace_id: string; page_id: string }
  /** The whole workspace was reconciled from disk; indexes may rebuild from `pages`. */
  | { kind: "reset"; workspace_id: string; pages: PageSnapshot[] };

type Listener<T> = (value: T) => void;

export class EventBus {
  private readonly eventListeners = new Set<Listener<WorkspaceEvent>>();
  private readonly changeListeners = new Set<Listener<LedgerChange>>();
  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  publish(event: WorkspaceEvent): void {
    this.emit(this.eventListeners, event);
  }

  publishChange(change: LedgerChange): void {
    this.emit(this.changeListeners, change);
  }

  onEvent(listener: Listener<WorkspaceEvent>): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onChange(listener: Listener<LedgerChange>): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private emit<T>(listeners: Set<Listener<T>>, value: T): void {
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
